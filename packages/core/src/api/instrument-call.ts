import { activeTracer } from './core-state.js';
import { paramSlots, type ParamSlot } from './params.js';
import type { Instrument } from './instrument.js';
import type { SpanState, ThreadTracer } from '../recording/tracer.js';
import type { ArgValue, Tracer } from '../types.js';
import { isDescriptor } from '../plugin/descriptor.js';
import { mergeArgs } from './merge-args.js';

/** An event name: fixed, or made on first call from the receiver (`Class.method`). */
export type EventName = string | ((self: unknown) => string);

/**
 * Per-call hooks of an instrument, for integrations that know what a call's values stand for
 * (tensors: shapes, bytes, device work). A hook that throws is reported once and the call goes on
 * untouched; the traced function's result and errors are never changed.
 */
export interface CallHooks<S = any> {
  /** At the start of a call, before the function runs; its value reaches `settle` and `args`. */
  begin?(callArgs: ArrayLike<unknown>, tracer: Tracer): S;
  /**
   * Before the event closes, with the call's result (the settled value of an async call): may
   * wait for work the result stands for (a device sync). A returned promise makes the event end
   * when it settles; the caller still gets the result at once.
   */
  settle?(result: unknown, state: S, tracer: Tracer): void | PromiseLike<unknown>;
  /**
   * Args for the event from the call's arguments, its result and `begin`'s value; runs when the
   * call returns (before `settle`). The object is read before the next call: a hook may reuse it.
   */
  args?(callArgs: ArrayLike<unknown>, result: unknown, state: S, tracer: Tracer): Record<string, ArgValue> | undefined;
  /** The call threw (or its promise rejected): `args` and `settle` will not run; release what `begin` took. */
  fail?(state: S, tracer: Tracer): void;
}

type AnyFn = (...args: any[]) => unknown;
type MethodContext = { kind: string; name: string | symbol; static?: boolean };

function isAsyncFunction(fn: Function): boolean {
  return fn.constructor?.name === 'AsyncFunction';
}

/** Keeps a wrapper indistinguishable from its function by name and arity. */
function copyIdentity<T extends Function>(wrapper: T, fn: Function): T {
  Object.defineProperty(wrapper, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(wrapper, 'length', { value: fn.length, configurable: true });
  return wrapper;
}

/** A name made from the receiver; one that throws or is no string gives `fallback` (the call goes on). */
function nameFrom(nameOf: (self: unknown) => string, self: unknown, fallback: string): string {
  try {
    const n = nameOf(self);
    return typeof n === 'string' && n !== '' ? n : fallback;
  } catch {
    return fallback;
  }
}

/** Writes the span's event when the promise settles; the caller still gets the same outcome. */
export function settleSpan(t: ThreadTracer, span: SpanState, kind: number, args: Record<string, ArgValue> | undefined, p: unknown): unknown {
  if (span.depth > 0) t.toAsync(span);
  return (p as Promise<unknown>).then(
    (v) => {
      t.exitKind(span, kind, args);
      return v;
    },
    (e: unknown) => {
      t.exitKind(span, kind, args);
      throw e;
    },
  );
}

/** The wrapper of `Instrument.wrap`: the tracer's allocation-free sync pair, or an async span. */
export function wrapCall<F extends AnyFn>(owner: Instrument, fn: F, nameOf: EventName): F {
  const slots = paramSlots(fn);
  const isAsync = isAsyncFunction(fn);
  let kind = -1;
  let kindOf: ThreadTracer | null = null;
  const kindFor: (t: ThreadTracer, self?: unknown) => number =
    typeof nameOf === 'string'
      ? (t: ThreadTracer): number => {
          if (kindOf !== t) {
            kind = t.interner.kind(nameOf, owner.cat);
            kindOf = t;
            owner.markOn(t);
          }
          return kind;
        }
      : (t: ThreadTracer, self: unknown): number => {
          if (kindOf !== t) {
            kind = t.interner.kind(nameFrom(nameOf, self, fn.name || owner.name), owner.cat);
            kindOf = t;
            owner.markOn(t);
          }
          return kind;
        };
  // Async functions run inside their span's async context (a closure over their arguments).
  const asyncWrapped = function (this: unknown, ...a: unknown[]): unknown {
    const t = activeTracer();
    if (t === null || !owner.enabled) return fn.apply(this, a);
    if (owner.hooks !== undefined) return hookedAsyncCall(t, owner, owner.hooks, fn, this, a, kindFor(t, this), slots);
    const k = kindFor(t, this);
    const args = owner.argsFor(a, slots);
    const depth = t.enterFast();
    const span = t.spanAt(depth);
    let result: unknown;
    try {
      result = t.runIn(span, () => fn.apply(this, a));
    } catch (e) {
      t.exitFast(depth, k, args);
      throw e;
    }
    return settleSpan(t, span, k, args, result);
  };
  // Sync ones pass `arguments` straight on: a rest parameter would be an array per call, and
  // `arguments` is built only where it is read (a parameter captured as an arg).
  const syncWrapped = function (this: unknown): unknown {
    const t = activeTracer();
    if (t === null || !owner.enabled) return fn.apply(this, arguments as never);
    if (owner.hooks !== undefined) return hookedCall(t, owner, owner.hooks, fn, this, arguments, kindFor(t, this), slots);
    const k = kindFor(t, this);
    const args = slots.length === 0 ? owner.argsFor() : owner.argsFor(arguments, slots);
    const depth = t.enterFast();
    let result: unknown;
    try {
      result = fn.apply(this, arguments as never);
    } catch (e) {
      t.exitFast(depth, k, args);
      throw e;
    }
    if (result instanceof Promise) return settleSpan(t, t.spanAt(depth), k, args, result);
    t.exitFast(depth, k, args);
    return result;
  };
  return copyIdentity((isAsync ? asyncWrapped : syncWrapped) as F, fn);
}

/** A hook that threw: reported once per process; the call goes on as if it gave no answer. */
function hookFailed(t: ThreadTracer, what: string, e: unknown): undefined {
  t.warnOnce(`instrument-hook-${what}`, `an instrument's ${what} hook failed (${(e as Error)?.message ?? String(e)}); the call went on untraced by it`);
  return undefined;
}

function isThenable(w: unknown): w is PromiseLike<unknown> {
  return w !== undefined && w !== null && typeof (w as PromiseLike<unknown>).then === 'function';
}

/** The hooks' args for a call that returned `value`; undefined when there are none (or the hook threw). */
function hookArgs(t: ThreadTracer, h: CallHooks, a: ArrayLike<unknown>, value: unknown, state: unknown): Record<string, ArgValue> | undefined {
  if (h.args === undefined) return undefined;
  try {
    return h.args(a, value, state, t);
  } catch (e) {
    return hookFailed(t, 'args', e);
  }
}

function hookSettle(t: ThreadTracer, h: CallHooks, value: unknown, state: unknown): void | PromiseLike<unknown> {
  if (h.settle === undefined) return undefined;
  try {
    return h.settle(value, state, t);
  } catch (e) {
    return hookFailed(t, 'settle', e);
  }
}

/** Closes `span` when `wait` settles (a device sync); a failed wait is reported once. */
function exitAfter(t: ThreadTracer, span: SpanState, k: number, args: Record<string, ArgValue> | undefined, wait: PromiseLike<unknown>): void {
  wait.then(
    () => t.exitKind(span, k, args),
    (e: unknown) => {
      hookFailed(t, 'settle', e);
      t.exitKind(span, k, args);
    },
  );
}

/**
 * The end of a hooked call whose value is known (a promise's once settled): args, then the wait.
 * Args describe the call as it returned (memory deltas must not include what runs during the wait);
 * the hooks' args object may be reused by them, so an event that waits keeps a copy.
 */
function finishSpan(t: ThreadTracer, h: CallHooks, span: SpanState, k: number, base: Record<string, ArgValue> | undefined, a: ArrayLike<unknown>, value: unknown, state: unknown): void {
  const extra = hookArgs(t, h, a, value, state);
  const args = extra === undefined ? base : mergeArgs(base ?? {}, extra);
  const wait = hookSettle(t, h, value, state);
  if (!isThenable(wait)) t.exitKind(span, k, args);
  else {
    // The event outlives this call: it leaves the stack for a lane of its own until the wait ends.
    if (span.depth > 0 && span.open) t.toAsync(span);
    exitAfter(t, span, k, args, wait);
  }
}

/** A hooked call that returned a promise: the event ends once it settles (and the hooks' wait after). */
function finishPromise(t: ThreadTracer, h: CallHooks, span: SpanState, k: number, base: Record<string, ArgValue> | undefined, a: ArrayLike<unknown>, state: unknown, p: Promise<unknown>): Promise<unknown> {
  if (span.depth > 0) t.toAsync(span);
  return p.then(
    (v) => {
      finishSpan(t, h, span, k, base, a, v, state); // the caller gets its value now; the event may end later (device wait)
      return v;
    },
    (e: unknown) => {
      t.exitKind(span, k, base);
      hookFail(t, h, state);
      throw e;
    },
  );
}

function hookFail(t: ThreadTracer, h: CallHooks, state: unknown): void {
  if (h.fail === undefined) return;
  try {
    h.fail(state, t);
  } catch (e) {
    hookFailed(t, 'fail', e);
  }
}

function hookBegin(t: ThreadTracer, h: CallHooks, a: ArrayLike<unknown>): unknown {
  if (h.begin === undefined) return undefined;
  try {
    return h.begin(a, t);
  } catch (e) {
    return hookFailed(t, 'begin', e);
  }
}

/**
 * A sync function's call with hooks: the tracer's allocation-free pair, the hooks' args recorded
 * beside the instrument's without a merged object. Only a wait (settle) or a promise makes a span object.
 */
function hookedCall(t: ThreadTracer, owner: Instrument, h: CallHooks, fn: AnyFn, self: unknown, a: ArrayLike<unknown>, k: number, slots: readonly ParamSlot[]): unknown {
  const state = hookBegin(t, h, a);
  const base = slots.length === 0 ? owner.argsFor() : owner.argsFor(a, slots);
  const depth = t.enterFast();
  let result: unknown;
  try {
    result = fn.apply(self, a as unknown[]);
  } catch (e) {
    t.exitFast(depth, k, base);
    hookFail(t, h, state);
    throw e;
  }
  if (result instanceof Promise) return finishPromise(t, h, t.spanAt(depth), k, base, a, state, result);
  const extra = hookArgs(t, h, a, result, state);
  const wait = hookSettle(t, h, result, state);
  if (!isThenable(wait)) {
    if (extra === undefined) t.exitFast(depth, k, base);
    else t.exitFastMerged(depth, k, base, extra);
    return result;
  }
  const span = t.spanAt(depth);
  t.toAsync(span);
  exitAfter(t, span, k, extra === undefined ? base : mergeArgs(base ?? {}, extra), wait);
  return result;
}

/** An async function's call with hooks: it runs inside its span's async context. */
function hookedAsyncCall(t: ThreadTracer, owner: Instrument, h: CallHooks, fn: AnyFn, self: unknown, a: unknown[], k: number, slots: readonly ParamSlot[]): unknown {
  const state = hookBegin(t, h, a);
  const base = owner.argsFor(a, slots);
  const depth = t.enterFast();
  const span = t.spanAt(depth);
  let result: unknown;
  try {
    result = t.runIn(span, () => fn.apply(self, a));
  } catch (e) {
    t.exitKind(span, k, base);
    hookFail(t, h, state);
    throw e;
  }
  if (result instanceof Promise) return finishPromise(t, h, span, k, base, a, state, result);
  finishSpan(t, h, span, k, base, a, result, state);
  return result;
}

/** Traces construction: a Proxy keeps the class's name, statics and instanceof. */
export function construct<C extends abstract new (...args: any[]) => unknown>(owner: Instrument, cls: C, name: string): C {
  const slots = paramSlots(cls);
  return new Proxy(cls, {
    construct(target, args, newTarget) {
      const t = activeTracer();
      if (t === null || !owner.enabled) return Reflect.construct(target, args, newTarget);
      owner.markOn(t);
      const depth = t.enterFast();
      try {
        return Reflect.construct(target, args, newTarget) as object;
      } finally {
        t.exitFast(depth, t.interner.kind(name, owner.cat), owner.argsFor(args, slots));
      }
    },
  });
}

function isClass(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  try {
    return /^class\b/.test(Function.prototype.toString.call(fn));
  } catch {
    return false;
  }
}

/** The dispatch of `Instrument.decorate` over every decorator form. */
export function decorate(owner: Instrument, target: unknown, context: unknown, descriptor: unknown, name: EventName | undefined): unknown {
  if (isDescriptor(descriptor)) {
    // Legacy (experimentalDecorators): (prototype or class, key, descriptor).
    const desc = descriptor as PropertyDescriptor;
    if (typeof desc.value === 'function') desc.value = owner.wrap(desc.value as AnyFn, name);
    else {
      if (typeof desc.get === 'function') desc.get = owner.wrap(desc.get, name);
      if (typeof desc.set === 'function') desc.set = owner.wrap(desc.set, name);
    }
    return desc;
  }
  const ctx = typeof context === 'object' && context !== null ? (context as MethodContext) : undefined;
  if (typeof target !== 'function') throw new TypeError(`decorate: expected a function, method or class to trace; got ${target === null ? 'null' : typeof target}`);
  if (ctx?.kind === 'class' || (ctx === undefined && isClass(target))) {
    return owner.construct(target as abstract new (...args: any[]) => unknown, typeof name === 'string' ? name : undefined);
  }
  return owner.wrap(target as AnyFn, name);
}

/** `Class.method`, resolved on first call from `this` (decorators see no class name). */
export function methodNamer(method: string, isStatic: boolean): (self: unknown) => string {
  return (self: unknown) => {
    const cls = isStatic ? (self as { name?: string } | undefined)?.name : (self as object | undefined)?.constructor?.name;
    return cls ? `${cls}.${method}` : method;
  };
}
