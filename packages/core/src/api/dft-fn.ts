import { Instrument, type Region, type StepInfo, type UpdateOptions } from './instrument.js';
import { methodNamer } from './instrument-call.js';
import type { ParamSlot } from './params.js';
import type { ArgValue } from '../types.js';
import { isDescriptor } from '../plugin/descriptor.js';

export type { Region, StepInfo, UpdateOptions };

export interface DftFnOptions extends StepInfo {
  /** With false, decorators return the function unchanged and regions write nothing. */
  enable?: boolean;
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

type AnyFn = (...args: any[]) => unknown;
type MethodContext = { kind: string; name: string | symbol; static?: boolean };

/**
 * pydftracer's `dft_fn`: one category and name, used to trace functions and methods (`log`),
 * constructors (`logInit`), regions (`start/stop`, `run`, `using`) and iterables (`iter`). An
 * `Instrument` whose function events are named after the function.
 */
export class DftFn {
  readonly cat: string;
  readonly name: string;
  /** The instrument underneath (`iter`/`yield` events, counter `step`). */
  readonly instrument: Instrument;

  constructor(cat: string, name?: string, options: DftFnOptions = {}) {
    if (typeof cat !== 'string' || cat === '') throw new TypeError(`dftFn: cat must be a non-empty string; got ${String(cat)}`);
    if (name !== undefined && typeof name !== 'string') throw new TypeError(`dftFn: name must be a string; got ${typeof name}`);
    this.cat = cat;
    this.name = name ?? callerName() ?? cat;
    this.instrument = new Instrument(cat, this.name, { enable: options.enable ?? true, epoch: options.epoch, step: options.step, imageIdx: options.imageIdx, imageSize: options.imageSize });
    // Decorators are called without a receiver: `@d.log` must work as well as `d.log(fn)`.
    this.log = this.log.bind(this) as DftFn['log'];
    this.logInit = this.logInit.bind(this) as DftFn['logInit'];
  }

  get enabled(): boolean {
    return this.instrument.enabled;
  }

  set enabled(on: boolean) {
    if (on) this.instrument.enable();
    else this.instrument.disable();
  }

  /** Sets the step coordinates and custom args written with later events. Returns this. */
  update(info: UpdateOptions = {}): this {
    this.instrument.update(info);
    return this;
  }

  /** The args for one event: defaults, then values the call itself passed. */
  argsFor(callArgs?: ArrayLike<unknown>, slots?: readonly ParamSlot[], extra?: Record<string, ArgValue>): Record<string, ArgValue> | undefined {
    return this.instrument.argsFor(callArgs, slots, extra);
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
      return this.wrap(fn, name !== undefined ? name : methodNamer(String(ctx.name), ctx.static === true));
    }
    return this.wrap(fn, name ?? (fn.name || this.name));
  }

  /** Wraps fn with events named by `nameOf`; with tracing off at decoration time it returns fn itself. */
  wrap<F extends AnyFn>(fn: F, nameOf: string | ((self: unknown) => string)): F {
    return this.instrument.wrap(fn, nameOf);
  }

  /**
   * Traces construction of a class: `@d.logInit class X {}` or `d.logInit(X)`; the event is named
   * `X.constructor`. The class keeps its name, statics and instanceof.
   */
  logInit<C extends abstract new (...args: any[]) => unknown>(cls: C, _context?: unknown): C {
    if (typeof cls !== 'function') throw new TypeError(`logInit: expected a class; got ${typeof cls}`);
    return this.instrument.construct(cls, `${cls.name}.constructor`);
  }

  /**
   * Opens a region named after this tracer. Stop it with `stop()` on the result, `d.stop()`, or a
   * `using` declaration. Code run synchronously inside nests under it; for async work prefer `run`.
   */
  start(args?: Record<string, ArgValue>): Region {
    return this.instrument.start({ args });
  }

  /** Stops the most recently started open region of this tracer. */
  stop(args?: Record<string, ArgValue>): void {
    this.instrument.stop(args);
  }

  /** Runs fn inside a region of this tracer; async fn are timed to settlement and nest across await. */
  run<T>(fn: () => T, args?: Record<string, ArgValue>): T {
    return this.instrument.run(fn, args);
  }

  /**
   * Traces iteration: per item a `<name>.iter` event (waiting for it) and a `<name>.yield` event
   * (the loop body holding it), each with the 1-based index. Sync and async iterables.
   */
  iter<T>(iterable: Iterable<T>, options?: IterOptions): Generator<T, void, undefined>;
  iter<T>(iterable: AsyncIterable<T>, options?: IterOptions): AsyncGenerator<T, void, undefined>;
  iter<T>(iterable: Iterable<T> | AsyncIterable<T>, options: IterOptions = {}): Generator<T, void, undefined> | AsyncGenerator<T, void, undefined> {
    return this.instrument.iter(iterable as Iterable<T>, { name: options.name ?? 'loop', counter: options.iterName ?? 'step' });
  }

  /** A `CM` metadata record in the trace. */
  logMetadata(key: string, value: unknown): void {
    this.instrument.metadata(key, value);
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
