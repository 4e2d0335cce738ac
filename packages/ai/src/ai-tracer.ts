import type { ArgValue, Instrument, InstrumentIterOptions, Region, UpdateOptions, VariantOptions } from '@dftracer/core';
import { checkOptionKeys, getTracer, isDescriptor } from '@dftracer/core';
import { ROOT_NAME } from './names.js';

/** Per-use options: `@ai.compute.forward({ epoch: 1 })`, `ai.comm.all_reduce({ enable: false })(fn)`. */
export interface AITracerOptions extends VariantOptions {}

export interface AIRegionOptions {
  /** Write `CM` records `<name>.start` / `<name>.end` (tracer µs) instead of an event. */
  metadata?: boolean;
  /** Args of the region's event. */
  args?: Record<string, ArgValue>;
}

export interface AIIterOptions {
  /** Write `<name>.iter` events (waiting for each item). Default true. */
  includeIter?: boolean;
  /** Write `<name>.block` events (the loop body holding each item). Default true. */
  includeBlock?: boolean;
  /** Event name prefix; default the tracer's name. */
  name?: string;
}

type AnyFn = (...args: any[]) => any;
type AnyClass = abstract new (...args: any[]) => any;

/**
 * One tracer of the taxonomy (`ai.compute.forward`, `ai.data`, …). Callable as a decorator or
 * function wrapper, or with options for a per-use variant; the members below for regions,
 * iterables and the tree.
 */
export interface AITracer {
  /** `ai.data.item(fn)` or `@ai.data.item` on a method / getter / setter (TC39). */
  <F extends AnyFn>(fn: F, context?: ClassMethodDecoratorContext | ClassGetterDecoratorContext | ClassSetterDecoratorContext): F;
  /** `@ai.checkpoint.init class X {}` or `ai.checkpoint.init(X)`: traced construction. */
  <C extends AnyClass>(cls: C, context?: ClassDecoratorContext): C;
  /** Legacy (`experimentalDecorators`) method decorator. */
  (target: object, key: string | symbol, descriptor: PropertyDescriptor): PropertyDescriptor;
  /** A variant with per-use args or enable state, itself usable in every way a tracer is. */
  (options: AITracerOptions): AITracer;

  /** The event category (`compute`, `data`, …). */
  readonly cat: string;
  /** The event name (`forward`, `preprocess.collate`, category-level `compute`). */
  readonly name: string;
  /** Whether the tracer writes events now. */
  readonly enabled: boolean;
  /** The core instrument underneath. */
  readonly instrument: Instrument;
  /** The child `<name>.init` (pydftracer's `init`), e.g. `ai.checkpoint.init` → `checkpoint.init`. */
  readonly init: AITracer;

  /** Opens a region; `start({ metadata: true })` writes `CM` `<name>.start` now and `<name>.end` at stop. */
  start(options?: AIRegionOptions): Region;
  /** Stops the most recent open region of this tracer (with `metadata: true` and none open, writes `<name>.end`). */
  stop(options?: { metadata?: boolean }): void;
  /** Runs fn in a region of this tracer; async fn timed to settlement, nesting across await. */
  run<T>(fn: () => T, args?: Record<string, ArgValue>): T;
  /** Per item `<name>.iter` (wait) and `<name>.block` (loop body), arg `count` (1-based). */
  iter<T>(iterable: Iterable<T>, options?: AIIterOptions): Generator<T, void, undefined>;
  iter<T>(iterable: AsyncIterable<T>, options?: AIIterOptions): AsyncGenerator<T, void, undefined>;
  /** The cached child `<name>.<suffix>`, same category (`ai.data.preprocess.derive('collate')`). */
  derive(suffix: string): AITracer;
  /** epoch/step/imageIdx/imageSize/args for later events of this tracer and all below it. */
  update(info: UpdateOptions): this;
  enable(): this;
  disable(): this;
}

const OPTION_KEYS = ['enable', 'epoch', 'step', 'imageIdx', 'imageSize', 'args'];
const facades = new WeakMap<Instrument, AITracer>();

function checkOptions(o: Record<string, unknown>, where: string): AITracerOptions {
  checkOptionKeys(where, o, OPTION_KEYS);
  if (o.enable !== undefined && typeof o.enable !== 'boolean') throw new TypeError(`${where}: enable must be a boolean; got ${typeof o.enable}`);
  return o as AITracerOptions;
}

/** How a user wrote the tracer (`ai.compute.forward`, `ai`), for error messages. */
function where(ins: Instrument): string {
  if (ins.name === ROOT_NAME) return 'ai';
  if (ins.name === ins.cat || ins.name.startsWith(`${ins.cat}.`)) return `ai.${ins.name}`;
  return `ai.${ins.cat}.${ins.name}`;
}

function checkObject(v: unknown, what: string, like: string): void {
  if (v !== undefined && (v === null || typeof v !== 'object')) throw new TypeError(`${what} must be an object like ${like}; got ${String(v)}`);
}

function checkKeys(o: object, keys: readonly string[], what: string): void {
  checkOptionKeys(what, o, keys);
}

/** Core's own checks say `update: …`; the user called `ai.compute.update`. */
function named<T>(w: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof TypeError && /^[a-z]+: /.test(e.message)) throw new TypeError(`${w}.${e.message}`);
    throw e;
  }
}

const members = {
  get cat(): string {
    return (this as unknown as AITracer).instrument.cat;
  },
  get enabled(): boolean {
    return (this as unknown as AITracer).instrument.enabled;
  },
  get init(): AITracer {
    return tracerOf((this as unknown as AITracer).instrument.derive('init'));
  },
  start(this: AITracer, options: AIRegionOptions = {}): Region {
    const w = `${where(this.instrument)}.start`;
    checkObject(options, `${w}: options`, '{ metadata, args }');
    checkKeys(options, ['metadata', 'args'], w);
    checkObject(options.args, `${w}: args`, '{ key: value }');
    return this.instrument.start({ metadata: options.metadata === true, args: options.args });
  },
  stop(this: AITracer, options: { metadata?: boolean } = {}): void {
    checkObject(options, `${where(this.instrument)}.stop: options`, '{ metadata }');
    const ins = this.instrument;
    // pydftracer's stop(metadata=True) writes the end record even without a matching start.
    if (!ins.stop() && options.metadata === true && ins.enabled) {
      const t = getTracer();
      t?.metadata(`${ins.name}.end`, String(t.now()));
    }
  },
  run<T>(this: AITracer, fn: () => T, args?: Record<string, ArgValue>): T {
    const w = `${where(this.instrument)}.run`;
    if (typeof fn !== 'function') throw new TypeError(`${w}: fn must be a function; got ${fn === null ? 'null' : typeof fn}`);
    checkObject(args, `${w}: args`, '{ key: value }');
    return this.instrument.run(fn, args);
  },
  iter<T>(this: AITracer, iterable: Iterable<T> | AsyncIterable<T>, options: AIIterOptions = {}): Generator<T, void, undefined> | AsyncGenerator<T, void, undefined> {
    const w = `${where(this.instrument)}.iter`;
    checkObject(options, `${w}: options`, '{ includeIter, includeBlock, name }');
    checkKeys(options, ['includeIter', 'includeBlock', 'name'], w);
    const o: InstrumentIterOptions = { includeIter: options.includeIter, includeBlock: options.includeBlock, name: options.name };
    return named(where(this.instrument), () => this.instrument.iter(iterable as Iterable<T>, o));
  },
  derive(this: AITracer, suffix: string): AITracer {
    return tracerOf(named(where(this.instrument), () => this.instrument.derive(suffix)));
  },
  update(this: AITracer, info: UpdateOptions): AITracer {
    named(where(this.instrument), () => this.instrument.update(info));
    return this;
  },
  enable(this: AITracer): AITracer {
    this.instrument.enable();
    return this;
  },
  disable(this: AITracer): AITracer {
    this.instrument.disable();
    return this;
  },
};
const proto: object = Object.create(Function.prototype, Object.getOwnPropertyDescriptors(members));

/** The callable facade of an instrument (one per instrument). */
export function tracerOf(ins: Instrument): AITracer {
  let t = facades.get(ins);
  if (t !== undefined) return t;
  const f = function aiTracer(a: unknown, b?: unknown, c?: unknown): unknown {
    if (typeof a === 'object' && a !== null && b === undefined && !isDescriptor(c)) {
      return tracerOf(named(where(ins), () => ins.variant(checkOptions(a as Record<string, unknown>, where(ins)))));
    }
    if (typeof a !== 'function' && (typeof a !== 'object' || a === null)) {
      throw new TypeError(`${where(ins)}: expects a function, method, class or options like { step }; got ${a === null ? 'null' : typeof a}`);
    }
    return named(where(ins), () => ins.decorate(a, b, c));
  };
  Object.setPrototypeOf(f, proto);
  Object.defineProperty(f, 'name', { value: ins.name, configurable: true });
  Object.defineProperty(f, 'instrument', { value: ins });
  t = f as unknown as AITracer;
  facades.set(ins, t);
  return t;
}
