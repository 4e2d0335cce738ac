// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFn = (this: any, ...args: any[]) => any;

const SKIP = new Set<string | symbol>(['length', 'name', 'prototype', 'arguments', 'caller']);

/**
 * Gives a wrapper the face of the function it wraps: `name`, `length`, and every other own
 * property (`realpath.native`, `exists[util.promisify.custom]`, the `customPromisifyArgs` symbol
 * that makes `util.promisify(fs.read)` resolve `{ bytesRead, buffer }`), so code that inspects or
 * promisifies fs functions sees no difference.
 */
export function dress<T extends AnyFn>(wrapper: T, original: AnyFn): T {
  Object.defineProperty(wrapper, 'name', { value: original.name, configurable: true });
  Object.defineProperty(wrapper, 'length', { value: original.length, configurable: true });
  for (const key of Reflect.ownKeys(original)) {
    if (SKIP.has(key)) continue;
    const d = Object.getOwnPropertyDescriptor(original, key);
    if (d !== undefined) Object.defineProperty(wrapper, key, d);
  }
  return wrapper;
}

/** One replaced property, restorable. */
export interface Patch {
  readonly target: object;
  readonly key: string;
  readonly original: unknown;
  readonly wrapper: unknown;
}

/** Replaces `target[key]` (a function) with `make(original)`; returns undefined if absent. */
export function patch(patches: Patch[], target: object, key: string, make: (original: AnyFn) => AnyFn): void {
  const t = target as Record<string, unknown>;
  const original = t[key];
  if (typeof original !== 'function') return;
  const wrapper = make(original as AnyFn);
  t[key] = wrapper;
  patches.push({ target, key, original, wrapper });
}

/** Restores patches in reverse order, only where our wrapper is still in place. */
export function unpatch(patches: Patch[]): void {
  for (let i = patches.length - 1; i >= 0; i--) {
    const p = patches[i]!;
    const t = p.target as Record<string, unknown>;
    if (t[p.key] === p.wrapper) t[p.key] = p.original;
  }
  patches.length = 0;
}

const isAsync = (f: AnyFn): boolean => Object.prototype.toString.call(f) === '[object AsyncFunction]';

/**
 * A wrapper of the same kind as `original`: an async function if it is one (fs/promises), else a
 * plain function (`opendir` is `promisify(opendir)`), so `util.types.isAsyncFunction` and the
 * absence of `prototype` match. Both hand `this` and the arguments to `impl`.
 */
export function promiseShaped(original: AnyFn, impl: (self: unknown, args: IArguments) => unknown): AnyFn {
  const w = isAsync(original)
    ? async function (this: unknown) {
        return impl(this, arguments);
      }
    : function (this: unknown) {
        return impl(this, arguments);
      };
  return dress(w, original);
}
