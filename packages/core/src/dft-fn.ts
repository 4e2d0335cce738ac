import { nowUs } from './clock.js';
import { activeTracer, tracingWanted } from './lifecycle.js';
import { paramSlots, type ParamSlot } from './params.js';
import type { SpanState, ThreadTracer } from './tracer.js';
import type { ArgValue } from './types.js';

/** Step and sample coordinates that pydftracer attaches to events. */
export interface StepInfo {
  epoch?: number;
  step?: number;
  imageIdx?: number;
  imageSize?: number;
}

export interface DftFnOptions extends StepInfo {
  /** With false, decorators return the function unchanged and regions write nothing. */
  enable?: boolean;
}

export interface UpdateOptions extends StepInfo {
  /** Extra args written with every later event of this tracer. */
  args?: Record<string, ArgValue>;
}

export interface LogOptions {
  /** Event name; default: the function's name, or `Class.method` for methods. */
  name?: string;
}

export interface IterOptions {
  /** Events are `<name>.iter` (waiting for the item) and `<name>.yield` (holding it). Default `loop`. */
  name?: string;
  /** Arg carrying the 1-based item index. Default `step`. */
  iterName?: string;
}

/** An open region; `stop()` (or leaving a `using` block) writes its event. */
export interface Region {
  stop(args?: Record<string, ArgValue>): void;
  [Symbol.dispose](): void;
}

type AnyFn = (...args: any[]) => unknown;
type MethodContext = { kind: string; name: string | symbol; static?: boolean };

const STEP_KEYS: readonly (readonly [keyof StepInfo, string])[] = [
  ['epoch', 'epoch'],
  ['step', 'step'],
  ['imageIdx', 'image_idx'],
  ['imageSize', 'image_size'],
];

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v instanceof Promise;
}

function isAsyncFunction(fn: Function): boolean {
  const n = fn.constructor?.name;
  return n === 'AsyncFunction';
}

/** Keeps a wrapper indistinguishable from its function by name and arity. */
function copyIdentity<T extends Function>(wrapper: T, fn: Function): T {
  Object.defineProperty(wrapper, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(wrapper, 'length', { value: fn.length, configurable: true });
  return wrapper;
}

/**
 * pydftracer's `dft_fn`: one category and name, used to trace functions and methods (`log`),
 * constructors (`logInit`), regions (`start/stop`, `run`, `using`) and iterables (`iter`).
 */
export class DftFn {
  readonly cat: string;
  readonly name: string;
  enabled: boolean;
  /** Args written with every event: epoch/step/image_idx/image_size and custom ones. */
  private defaults: Record<string, ArgValue> = {};
  private hasDefaults = false;
  private readonly open: Region[] = [];

  constructor(cat: string, name?: string, options: DftFnOptions = {}) {
    if (typeof cat !== 'string' || cat === '') throw new TypeError(`dftFn: cat must be a non-empty string; got ${String(cat)}`);
    if (name !== undefined && typeof name !== 'string') throw new TypeError(`dftFn: name must be a string; got ${typeof name}`);
    this.cat = cat;
    this.name = name ?? callerName() ?? cat;
    this.enabled = options.enable ?? true;
    this.update(options);
    // Decorators are called without a receiver: `@d.log` must work as well as `d.log(fn)`.
    this.log = this.log.bind(this) as DftFn['log'];
    this.logInit = this.logInit.bind(this) as DftFn['logInit'];
  }

  /** Sets the step coordinates and custom args written with later events. Returns this. */
  update(info: UpdateOptions = {}): this {
    let d = { ...this.defaults };
    for (const [opt, key] of STEP_KEYS) {
      const v = info[opt];
      if (v !== undefined) {
        if (typeof v !== 'number') throw new TypeError(`update: ${opt} must be a number; got ${typeof v}`);
        d[key] = v;
      }
    }
    // Spread, not Object.assign: an own `__proto__` key (JSON.parse makes them) is an arg like any
    // other, where assignment would call the prototype setter and drop it.
    if (info.args !== undefined) d = { ...d, ...info.args };
    this.defaults = d;
    this.hasDefaults = Object.keys(d).length > 0;
    return this;
  }

  /** The args for one event: defaults, then values the call itself passed. */
  argsFor(callArgs?: ArrayLike<unknown>, slots?: readonly ParamSlot[], extra?: Record<string, ArgValue>): Record<string, ArgValue> | undefined {
    if ((slots === undefined || slots.length === 0) && extra === undefined) {
      // Events copy their args when recorded and update() replaces the defaults object: no copy needed.
      return this.hasDefaults ? this.defaults : undefined;
    }
    let out: Record<string, ArgValue> = this.hasDefaults ? { ...this.defaults } : {};
    if (slots !== undefined && callArgs !== undefined) {
      for (const s of slots) {
        const v = callArgs[s.index];
        if (typeof v === 'number') out[s.key] = v;
        else if (v === undefined && s.dflt !== undefined) out[s.key] = s.dflt;
      }
    }
    if (extra !== undefined) out = { ...out, ...extra };
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Traces a function or method: `d.log(fn)`, `@d.log` on a method (TC39 or legacy decorators),
   * or `d.log({ name })(fn)`. Async functions are timed to settlement.
   */
  log<F extends AnyFn>(fn: F): F;
  log<F extends AnyFn>(fn: F, context: MethodContext): F;
  log(target: object, key: string | symbol, descriptor: PropertyDescriptor): PropertyDescriptor;
  log(options: LogOptions | string): <F extends AnyFn>(fn: F, context?: MethodContext) => F;
  log(a: unknown, b?: unknown, c?: unknown): unknown {
    if (typeof a === 'string' || (typeof a === 'object' && a !== null && typeof b === 'undefined' && !isDescriptor(c))) {
      const opts: LogOptions = typeof a === 'string' ? { name: a } : (a as LogOptions);
      return (fn: AnyFn, ctx?: MethodContext) => this.decorate(fn, ctx, opts.name);
    }
    if (isDescriptor(c)) {
      const desc = c as PropertyDescriptor;
      if (typeof desc.value === 'function') desc.value = this.wrap(desc.value as AnyFn, methodNamer(String(b as string | symbol), false));
      return desc;
    }
    return this.decorate(a as AnyFn, b as MethodContext | undefined, undefined);
  }

  /** Same as `log`, for static methods (pydftracer's `log_static`). */
  get logStatic(): DftFn['log'] {
    return this.log.bind(this) as DftFn['log'];
  }

  private decorate(fn: AnyFn, ctx: MethodContext | undefined, name: string | undefined): AnyFn {
    if (typeof fn !== 'function') throw new TypeError(`log: expected a function to trace; got ${typeof fn}`);
    if (ctx !== undefined && typeof ctx === 'object' && (ctx.kind === 'method' || ctx.kind === 'getter' || ctx.kind === 'setter')) {
      return this.wrap(fn, name !== undefined ? () => name : methodNamer(String(ctx.name), ctx.static === true));
    }
    const fixed = name ?? (fn.name || this.name);
    return this.wrap(fn, () => fixed);
  }

  /** Wraps fn; with tracing off at decoration time it returns fn itself. */
  wrap<F extends AnyFn>(fn: F, nameOf: (self: unknown) => string): F {
    if (!this.enabled || !tracingWanted()) return fn;
    const owner = this;
    const slots = paramSlots(fn);
    const isAsync = isAsyncFunction(fn);
    let kind = -1;
    let kindOf: ThreadTracer | null = null;
    const kindFor = (t: ThreadTracer, self: unknown): number => {
      if (kindOf !== t) {
        kind = t.interner.kind(nameOf(self), owner.cat);
        kindOf = t;
      }
      return kind;
    };
    // Async functions run inside their span's async context (a closure over their arguments).
    const asyncWrapped = function (this: unknown, ...a: unknown[]): unknown {
      const t = activeTracer();
      if (t === null || !owner.enabled) return fn.apply(this, a);
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
      return settle(t, span, k, args, result);
    };
    // Sync ones pass `arguments` straight on: a rest parameter would be an array per call, and
    // `arguments` is built only where it is read (a parameter captured as an arg).
    const syncWrapped = function (this: unknown): unknown {
      const t = activeTracer();
      if (t === null || !owner.enabled) return fn.apply(this, arguments as never);
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
      if (isThenable(result)) return settle(t, t.spanAt(depth), k, args, result);
      t.exitFast(depth, k, args);
      return result;
    };
    const wrapped = isAsync ? asyncWrapped : syncWrapped;
    return copyIdentity(wrapped as F, fn);
  }

  /**
   * Traces construction of a class: `@d.logInit class X {}` or `d.logInit(X)`; the event is named
   * `X.constructor`. The class keeps its name, statics and instanceof.
   */
  logInit<C extends abstract new (...args: any[]) => unknown>(cls: C, _context?: unknown): C {
    if (typeof cls !== 'function') throw new TypeError(`logInit: expected a class; got ${typeof cls}`);
    if (!this.enabled || !tracingWanted()) return cls;
    const owner = this;
    const name = `${cls.name}.constructor`;
    const slots = paramSlots(cls);
    return new Proxy(cls, {
      construct(target, args, newTarget) {
        const t = activeTracer();
        if (t === null || !owner.enabled) return Reflect.construct(target, args, newTarget);
        const depth = t.enterFast();
        try {
          return Reflect.construct(target, args, newTarget) as object;
        } finally {
          t.exitFast(depth, t.interner.kind(name, owner.cat), owner.argsFor(args, slots));
        }
      },
    });
  }

  /**
   * Opens a region named after this tracer. Stop it with `stop()` on the result, `d.stop()`, or a
   * `using` declaration. Code run synchronously inside nests under it; for async work prefer `run`.
   */
  start(args?: Record<string, ArgValue>): Region {
    const t = this.enabled ? activeTracer() : null;
    if (t === null) return NOOP_REGION;
    const span = t.enterRegion();
    const kind = t.interner.kind(this.name, this.cat);
    const startArgs = this.argsFor(undefined, undefined, args);
    const open = this.open;
    const region: Region = {
      stop: (stopArgs?: Record<string, ArgValue>) => {
        const i = open.lastIndexOf(region);
        if (i >= 0) open.splice(i, 1);
        t.exitKind(span, kind, stopArgs === undefined ? startArgs : { ...startArgs, ...stopArgs });
      },
      [Symbol.dispose]: () => region.stop(),
    };
    open.push(region);
    return region;
  }

  /** Stops the most recently started open region of this tracer. */
  stop(args?: Record<string, ArgValue>): void {
    this.open[this.open.length - 1]?.stop(args);
  }

  /** Runs fn inside a region of this tracer; async fn are timed to settlement and nest across await. */
  run<T>(fn: () => T, args?: Record<string, ArgValue>): T {
    const t = this.enabled ? activeTracer() : null;
    if (t === null) return fn();
    const kind = t.interner.kind(this.name, this.cat);
    const allArgs = this.argsFor(undefined, undefined, args);
    const depth = t.enterFast();
    const span = t.spanAt(depth);
    let result: T;
    try {
      result = t.runIn(span, fn);
    } catch (e) {
      t.exitFast(depth, kind, allArgs);
      throw e;
    }
    if (isThenable(result)) return settle(t, span, kind, allArgs, result) as T;
    t.exitFast(depth, kind, allArgs);
    return result;
  }

  /**
   * Traces iteration: per item a `<name>.iter` event (waiting for it) and a `<name>.yield` event
   * (the loop body holding it), each with the 1-based index. Sync and async iterables.
   */
  iter<T>(iterable: Iterable<T>, options?: IterOptions): Generator<T, void, undefined>;
  iter<T>(iterable: AsyncIterable<T>, options?: IterOptions): AsyncGenerator<T, void, undefined>;
  iter<T>(iterable: Iterable<T> | AsyncIterable<T>, options: IterOptions = {}): Generator<T, void, undefined> | AsyncGenerator<T, void, undefined> {
    const name = options.name ?? 'loop';
    const key = options.iterName ?? 'step';
    if (iterable != null && typeof (iterable as AsyncIterable<T>)[Symbol.asyncIterator] === 'function') {
      return traceAsyncIter(this, iterable as AsyncIterable<T>, name, key);
    }
    if (iterable == null || typeof (iterable as Iterable<T>)[Symbol.iterator] !== 'function') {
      throw new TypeError(`iter: expected an iterable or async iterable; got ${iterable === null ? 'null' : typeof iterable}`);
    }
    return traceSyncIter(this, iterable as Iterable<T>, name, key);
  }

  /** A `CM` metadata record in the trace. */
  logMetadata(key: string, value: unknown): void {
    activeTracer()?.metadata(key, value);
  }
}

const NOOP_REGION: Region = Object.freeze({ stop() {}, [Symbol.dispose]() {} });

function isDescriptor(v: unknown): boolean {
  return typeof v === 'object' && v !== null && ('value' in v || 'get' in v || 'set' in v) && ('configurable' in v || 'writable' in v || 'enumerable' in v);
}

/** `Class.method`, resolved on first call from `this` (decorators see no class name). */
function methodNamer(method: string, isStatic: boolean): (self: unknown) => string {
  return (self: unknown) => {
    const cls = isStatic ? (self as { name?: string } | undefined)?.name : (self as object | undefined)?.constructor?.name;
    return cls ? `${cls}.${method}` : method;
  };
}

/** Writes the span's event when the promise settles; the caller still gets the same outcome. */
function settle(t: ThreadTracer, span: SpanState, kind: number, args: Record<string, ArgValue> | undefined, p: unknown): unknown {
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

function* traceSyncIter<T>(d: DftFn, src: Iterable<T>, name: string, key: string): Generator<T, void, undefined> {
  const it = src[Symbol.iterator]();
  let done = false;
  let i = 0;
  try {
    for (;;) {
      const t = d.enabled ? activeTracer() : null;
      const t0 = nowUs();
      const r = it.next();
      if (r.done) {
        done = true;
        return;
      }
      i++;
      if (t === null) {
        yield r.value;
        continue;
      }
      const args = d.argsFor(undefined, undefined, { [key]: i });
      t.emitKind(t.interner.kind(`${name}.iter`, d.cat), t0, nowUs() - t0, args);
      const span = t.enterRegion();
      try {
        yield r.value;
      } finally {
        t.exitKind(span, t.interner.kind(`${name}.yield`, d.cat), args);
      }
    }
  } finally {
    if (!done) it.return?.();
  }
}

async function* traceAsyncIter<T>(d: DftFn, src: AsyncIterable<T>, name: string, key: string): AsyncGenerator<T, void, undefined> {
  const it = src[Symbol.asyncIterator]();
  let done = false;
  let i = 0;
  try {
    for (;;) {
      const t = d.enabled ? activeTracer() : null;
      const wait = t?.enter({ async: true });
      const r = await it.next();
      if (r.done) {
        done = true;
        if (wait !== undefined) t?.discard(wait); // the end of iteration is no item: nothing to write
        return;
      }
      i++;
      if (t === null || wait === undefined) {
        yield r.value;
        continue;
      }
      const args = d.argsFor(undefined, undefined, { [key]: i });
      t.exitKind(wait, t.interner.kind(`${name}.iter`, d.cat), args);
      const hold = t.enter({ async: true });
      try {
        yield r.value;
      } finally {
        t.exitKind(hold, t.interner.kind(`${name}.yield`, d.cat), args);
      }
    }
  } finally {
    if (!done) await it.return?.();
  }
}

/** The name of the function that called `dftFn(...)`, like pydftracer's default name. */
function callerName(): string | undefined {
  const stack = new Error().stack?.split('\n');
  // [0] "Error", [1] callerName, [2] DftFn constructor, [3] dftFn or user, [4] ...
  for (let i = 3; i < (stack?.length ?? 0); i++) {
    const m = /^\s*at (?:async )?([^\s(]+) \(/.exec(stack![i]!);
    if (m === null) return undefined;
    const fn = m[1]!;
    if (fn === 'dftFn' || fn === 'new DftFn' || fn.endsWith('.dftFn')) continue;
    if (fn.startsWith('Object.<anonymous>') || fn === '<anonymous>') return undefined;
    return fn.replace(/^(?:Object|Module)\./, '');
  }
  return undefined;
}

/** pydftracer's `dft_fn(cat, name)`. */
export function dftFn(cat: string, name?: string, options?: DftFnOptions): DftFn {
  return new DftFn(cat, name, options);
}

/** The alias pydftracer's examples use (`from dftracer.python import dft_fn as Profile`). */
export const Profile = dftFn;
