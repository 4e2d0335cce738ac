import { activeTracer, tracingWanted } from './core-state.js';
import { construct, decorate, wrapCall, type CallHooks, type EventName } from './instrument-call.js';
import { traceIterable, type InstrumentIterOptions } from './instrument-iter.js';
import { nowUs } from '../recording/clock.js';
import { safeJson } from '../format/safe-json.js';
import { settleSpan } from './instrument-call.js';
import { mergeArgs } from './merge-args.js';
import type { ParamSlot } from './params.js';
import type { SpanState, ThreadTracer } from '../recording/tracer.js';
import type { ArgValue } from '../types.js';

/** Step and sample coordinates that pydftracer attaches to events. */
export interface StepInfo {
  epoch?: number;
  step?: number;
  imageIdx?: number;
  imageSize?: number;
}

export interface UpdateOptions extends StepInfo {
  /** Extra args written with every later event. */
  args?: Record<string, ArgValue>;
}

/** The names an instrument gives the two events of each item of an iterable. */
export interface IterNames {
  /** Suffix of the event timing the wait for an item: `<name>.<wait>`. */
  readonly wait: string;
  /** Suffix of the event timing the loop body holding it: `<name>.<hold>`. */
  readonly hold: string;
  /** Arg carrying the 1-based item index. */
  readonly counter: string;
}

export interface InstrumentOptions extends UpdateOptions {
  /** false: decorators return the function unchanged and regions write nothing. Default true. */
  enable?: boolean;
  /** Iterable event names; default `{ wait: 'iter', hold: 'yield', counter: 'step' }` (dftFn's). */
  iter?: Partial<IterNames>;
  /** Per-call hooks (args from arguments and result, a wait before the event closes). */
  hooks?: CallHooks;
  /** The integration named in the `end` event's `used` once this instrument (or its subtree) writes an event. */
  used?: string;
}

/** Options of `child()`/`derive()`: an instrument's options and, for a child, its own category. */
export interface ChildOptions extends InstrumentOptions {
  /** The child's category; default the parent's. */
  cat?: string;
}

/** Options of `variant()`: a per-use override of a shared instrument. */
export interface VariantOptions extends UpdateOptions {
  /** Pinned: the variant stays so whatever `enable()`/`disable()` its ancestors get. */
  enable?: boolean;
}

export interface RegionOptions {
  /** Args of the region's event, after the instrument's own. */
  args?: Record<string, ArgValue>;
  /**
   * No event: `CM` metadata records `<name>.start` and `<name>.end` with the tracer's time (µs),
   * as pydftracer's `start(metadata=True)`.
   */
  metadata?: boolean;
  /**
   * The region is the parent of what runs later in the async context it was started from (the
   * span open there), whichever frame runs it, until it stops: for regions opened and closed by
   * callbacks of a driver that runs its steps one after another (`model.fit`'s epochs and
   * batches). Work running concurrently in that context nests under it too.
   */
  context?: boolean;
}

/** An open region; `stop()` (or leaving a `using` block) writes its event. */
export interface Region {
  stop(args?: Record<string, ArgValue>): void;
  [Symbol.dispose](): void;
}

export type { CallHooks, EventName, InstrumentIterOptions };

const DFTFN_ITER: IterNames = { wait: 'iter', hold: 'yield', counter: 'step' };
const STEP_KEYS: readonly (readonly [keyof StepInfo, string])[] = [
  ['epoch', 'epoch'],
  ['step', 'step'],
  ['imageIdx', 'image_idx'],
  ['imageSize', 'image_size'],
];
/** Variants kept per instrument (a decorator's variant is made once; more means per-call args). */
export const MAX_VARIANTS = 1024;
const NOOP_REGION: Region = Object.freeze({ stop() {}, [Symbol.dispose]() {} });

/**
 * The one way a function, method, constructor, region or iterable becomes events: a category and a
 * name, args written with every event, and a place in a tree of instruments (`derive`, `child`,
 * `variant`) over which `enable()`, `disable()` and `update()` apply to a whole subtree. `dftFn`
 * and `@dftracer/ai` are built on it.
 */
export class Instrument {
  readonly cat: string;
  readonly name: string;
  readonly parent: Instrument | null;
  readonly iterNames: IterNames;
  /** Hooks every traced call of this instrument runs (see `CallHooks`); undefined: none. */
  hooks: CallHooks | undefined;
  /** InstrumentOptions.used, inherited by the subtree. */
  readonly used: string | undefined;
  private on: boolean;
  /** An explicit `enable` of a variant: ancestors' enable()/disable() leave it alone. */
  private readonly pinned: boolean;
  /** Args written with every event: epoch/step/image_idx/image_size and custom ones. */
  private defaults: Record<string, ArgValue> = {};
  private hasDefaults = false;
  private readonly children = new Map<string, Instrument>();
  private readonly variants = new Map<string, Instrument>();
  private readonly open: Region[] = [];
  /** This instrument and all below it (subtree()), or null until asked again after the tree grew. */
  private below: Instrument[] | null = null;

  constructor(cat: string, name: string, options: InstrumentOptions = {}, parent: Instrument | null = null) {
    if (typeof cat !== 'string' || cat === '') throw new TypeError(`instrument: cat must be a non-empty string; got ${String(cat)}`);
    if (typeof name !== 'string' || name === '') throw new TypeError(`instrument: name must be a non-empty string; got ${String(name)}`);
    this.cat = cat;
    this.name = name;
    this.parent = parent;
    this.iterNames = { ...(parent?.iterNames ?? DFTFN_ITER), ...options.iter };
    this.hooks = options.hooks ?? parent?.hooks;
    this.used = options.used ?? parent?.used;
    this.on = options.enable ?? parent?.on ?? true;
    this.pinned = parent !== null && options.enable !== undefined;
    if (parent !== null) this.setDefaults(parent.defaults); // shared: args objects are replaced, never changed
    this.assign(options);
  }

  /**
   * The object behind this instrument's args: another one after every update (never mutated), so
   * args made from it are still current while it is the same. @internal
   */
  get argsVersion(): object {
    return this.defaults;
  }

  /** Whether this instrument writes events now. */
  get enabled(): boolean {
    return this.on;
  }

  /** Turns this instrument and its subtree on (variants created with an explicit `enable` keep theirs). */
  enable(): this {
    this.setOn(true);
    return this;
  }

  /** Turns this instrument and its subtree off: wrapped functions call straight through. */
  disable(): this {
    this.setOn(false);
    return this;
  }

  private setOn(on: boolean): void {
    this.on = on;
    for (const c of this.children.values()) if (!c.pinned) c.setOn(on);
    for (const c of this.variants.values()) if (!c.pinned) c.setOn(on);
  }

  /**
   * Sets step coordinates and custom args written with later events of this instrument and its
   * subtree; as pydftracer, instruments disabled at the time keep their old values. Returns this.
   */
  update(info: UpdateOptions = {}): this {
    const patch = stepArgs(info);
    if (patch !== undefined) Instrument.patchAll(this.subtree(), patch);
    return this;
  }

  /**
   * This instrument and every one below it (children and kept variants), parents first; made
   * once and again only after the tree grows (ai.update() walks the whole taxonomy every step).
   */
  private subtree(): readonly Instrument[] {
    if (this.below === null) {
      const out: Instrument[] = [this];
      for (const c of this.children.values()) out.push(...c.subtree());
      for (const c of this.variants.values()) out.push(...c.subtree());
      this.below = out;
    }
    return this.below;
  }

  /** The tree below grew: this and every ancestor make their subtree list anew. */
  private grew(): void {
    for (let n: Instrument | null = this; n !== null && n.below !== null; n = n.parent) n.below = null;
  }

  /**
   * Applies an update to instruments in subtree order: the enabled ones that held the same (never
   * mutated) args object get the same patched one, so a tree updated as a whole makes one object
   * per update, not one per instrument; disabled ones keep their old values, as pydftracer's.
   */
  private static patchAll(nodes: readonly Instrument[], patch: Record<string, ArgValue>): void {
    let lastOld: Record<string, ArgValue> | null = null;
    let lastNew: Record<string, ArgValue> | null = null;
    let lastHasKeys = false;
    let memo: Map<object, Record<string, ArgValue>> | null = null;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (!n.on) continue;
      const old = n.defaults;
      if (old !== lastOld) {
        let next = memo?.get(old);
        if (next === undefined) {
          next = { ...old, ...patch };
          (memo ??= new Map()).set(old, next);
        }
        lastOld = old;
        lastNew = next;
        lastHasKeys = hasKeys(next);
      }
      n.defaults = lastNew!;
      n.hasDefaults = lastHasKeys;
    }
  }

  /** Marks `used` on a tracer this instrument writes into (Tracer.markUsed: the same name again is one compare). */
  markOn(t: ThreadTracer): void {
    if (this.used !== undefined) t.markUsed(this.used);
  }

  /** Sets the hooks of this instrument and its subtree (undefined removes them). */
  setHooks(hooks: CallHooks | undefined): this {
    this.hooks = hooks;
    for (const c of this.children.values()) c.setHooks(hooks);
    for (const c of this.variants.values()) c.setHooks(hooks);
    return this;
  }

  /** The child named `<this name>.<suffix>`, same category; created once, then the same object. */
  derive(suffix: string, options?: ChildOptions): Instrument {
    if (typeof suffix !== 'string' || suffix === '') throw new TypeError(`derive: name must be a non-empty string; got ${String(suffix)}`);
    return this.child(`${this.name}.${suffix}`, options);
  }

  /**
   * The child with exactly this name (same category unless `options.cat`), cached: it starts with
   * this instrument's args, enable state, iterable names and hooks, and follows its later
   * enable/disable/update. Options apply when the child is first made.
   */
  child(name: string, options?: ChildOptions): Instrument {
    let c = this.children.get(name);
    if (c === undefined) {
      c = new Instrument(options?.cat ?? this.cat, name, options, this);
      this.children.set(name, c);
      this.grew();
    }
    return c;
  }

  /**
   * The same event with per-use args or enable state (`@ai.compute.forward({ epoch: 1 })`); one
   * per distinct options, reached by later updates of its ancestors like any child.
   */
  variant(options: VariantOptions): Instrument {
    if (typeof options !== 'object' || options === null) throw new TypeError(`variant: options must be an object; got ${String(options)}`);
    const key = variantKey(options);
    let v = this.variants.get(key);
    if (v === undefined) {
      v = new Instrument(this.cat, this.name, options, this);
      // Past the bound (distinct args per call), a variant is made afresh from its ancestors' current
      // state each time and not kept: memory stays bounded whatever the args.
      if (this.variants.size < MAX_VARIANTS) {
        this.variants.set(key, v);
        this.grew();
      }
    }
    return v;
  }

  private assign(info: UpdateOptions): void {
    const patch = stepArgs(info);
    if (patch !== undefined) this.setDefaults({ ...this.defaults, ...patch });
  }

  private setDefaults(d: Record<string, ArgValue>): void {
    this.defaults = d;
    this.hasDefaults = hasKeys(d);
  }

  /** The args for one event: this instrument's, then values the call passed, then `extra`. */
  argsFor(callArgs?: ArrayLike<unknown>, slots?: readonly ParamSlot[], extra?: Record<string, ArgValue>): Record<string, ArgValue> | undefined {
    if ((slots === undefined || slots.length === 0) && extra === undefined) {
      // Events copy their args when recorded and updates replace the defaults object: no copy needed.
      return this.hasDefaults ? this.defaults : undefined;
    }
    if (slots === undefined || slots.length === 0) {
      // Only `extra` (an iterator's counter, a region's args): one copy, never the caller's object.
      const out = mergeArgs(this.hasDefaults ? this.defaults : {}, extra!);
      return hasKeys(out) ? out : undefined;
    }
    let out: Record<string, ArgValue> = this.hasDefaults ? { ...this.defaults } : {};
    if (slots !== undefined && callArgs !== undefined) {
      for (const s of slots) {
        const v = callArgs[s.index];
        if (typeof v === 'number') out[s.key] = v;
        else if (v === undefined && s.dflt !== undefined) out[s.key] = s.dflt;
      }
    }
    // Spread, not Object.assign: an own `__proto__` key (JSON.parse makes them) is an arg like any
    // other, where assignment would call the prototype setter and drop it.
    if (extra !== undefined) out = mergeArgs(out, extra);
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Traces a function: one event per call, named `name` (default: this instrument's name).
   * Async results are timed to settlement, with children nesting across `await`. With tracing
   * off at this moment (DFTRACER_ENABLE=0) or this instrument disabled, returns `fn` itself.
   */
  wrap<F extends (...args: any[]) => unknown>(fn: F, name?: EventName): F {
    if (typeof fn !== 'function') throw new TypeError(`wrap: expected a function to trace; got ${typeof fn}`);
    if (!this.on || !tracingWanted()) return fn;
    return wrapCall(this, fn, name ?? this.name);
  }

  /**
   * Traces construction of a class (a Proxy: name, statics and instanceof kept). Event named
   * `name`, default this instrument's name.
   */
  construct<C extends abstract new (...args: any[]) => unknown>(cls: C, name?: string): C {
    if (typeof cls !== 'function') throw new TypeError(`construct: expected a class; got ${typeof cls}`);
    if (!this.on || !tracingWanted()) return cls;
    return construct(this, cls, name ?? this.name);
  }

  /**
   * Every decorator form at once: `(fn)`, `(fn, context)` for TC39 method/getter/setter/class
   * decorators, `(target, key, descriptor)` for legacy ones, and a class (traced construction).
   * `name` defaults to this instrument's name; a function makes it per call from `this`.
   */
  decorate(target: unknown, context?: unknown, descriptor?: unknown, name?: EventName): any {
    return decorate(this, target, context, descriptor, name);
  }

  /**
   * Opens a region. Stop it with `stop()` on the result, `instrument.stop()`, or a `using`
   * declaration. Code run synchronously inside nests under it; for async work prefer `run`.
   */
  start(options: RegionOptions = {}): Region {
    const t = this.on ? activeTracer() : null;
    if (t === null) return NOOP_REGION;
    if (options.metadata === true) {
      t.metadata(`${this.name}.start`, String(nowUs()));
      return this.keep(() => t.metadata(`${this.name}.end`, String(nowUs())));
    }
    const span = t.enterRegion();
    this.markOn(t);
    const kind = t.interner.kind(this.name, this.cat);
    const startArgs = this.argsFor(undefined, undefined, options.args);
    const holder = options.context === true ? t.handOver(span) : undefined;
    return this.keep((stopArgs) => {
      t.exitKind(span, kind, stopArgs === undefined ? startArgs : mergeArgs(startArgs ?? {}, stopArgs));
      if (holder !== undefined) t.takeBack(holder, span);
    });
  }

  /** A region whose stop runs `close` once and which `stop()` finds until then. */
  private keep(close: (args?: Record<string, ArgValue>) => void): Region {
    const open = this.open;
    let done = false;
    const region: Region = {
      stop: (args?: Record<string, ArgValue>) => {
        if (done) return;
        done = true;
        const i = open.lastIndexOf(region);
        if (i >= 0) open.splice(i, 1);
        close(args);
      },
      [Symbol.dispose]: () => region.stop(),
    };
    open.push(region);
    return region;
  }

  /** Stops the most recently started open region of this instrument; false when none was open. */
  stop(args?: Record<string, ArgValue>): boolean {
    const r = this.open[this.open.length - 1];
    r?.stop(args);
    return r !== undefined;
  }

  /**
   * Runs fn inside a region; async fn are timed to settlement and nest across await. `keep` sees
   * the (settled) result and may say it was no event (the end of an iterator): nothing is written.
   */
  run<T>(fn: () => T, args?: Record<string, ArgValue>, keep?: (result: Awaited<T>) => boolean): T {
    const t = this.on ? activeTracer() : null;
    if (t === null) return fn();
    this.markOn(t);
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
    if (keep !== undefined) return keepOrDrop(t, span, kind, allArgs, result, keep);
    if (result instanceof Promise) return settleSpan(t, span, kind, allArgs, result) as T;
    t.exitFast(depth, kind, allArgs);
    return result;
  }

  /**
   * Traces iteration: per item a `<name>.<wait>` event (waiting for it) and a `<name>.<hold>`
   * event (the loop body holding it), each with the 1-based counter arg. Sync and async iterables.
   */
  iter<T>(iterable: Iterable<T>, options?: InstrumentIterOptions): Generator<T, void, undefined>;
  iter<T>(iterable: AsyncIterable<T>, options?: InstrumentIterOptions): AsyncGenerator<T, void, undefined>;
  iter<T>(iterable: Iterable<T> | AsyncIterable<T>, options: InstrumentIterOptions = {}): Generator<T, void, undefined> | AsyncGenerator<T, void, undefined> {
    return traceIterable(this, iterable, options);
  }

  /** A `CM` metadata record in the trace. */
  metadata(key: string, value: unknown): void {
    activeTracer()?.metadata(key, value);
  }
}

/** `run` with a `keep` test: the span is written or dropped once the result is known. */
function keepOrDrop<T>(t: ThreadTracer, span: SpanState, kind: number, args: Record<string, ArgValue> | undefined, result: T, keep: (r: Awaited<T>) => boolean): T {
  const close = (v: unknown): void => {
    let write = true;
    try {
      write = keep(v as Awaited<T>);
    } catch {
      // a failing test keeps the event
    }
    if (write) t.exitKind(span, kind, args);
    else t.discard(span);
  };
  if (!(result instanceof Promise)) {
    close(result);
    return result;
  }
  if (span.depth > 0) t.toAsync(span);
  return result.then(
    (v) => {
      close(v);
      return v;
    },
    (e: unknown) => {
      t.exitKind(span, kind, args);
      throw e;
    },
  ) as T;
}

/** An instrument of category `cat` and event name `name` (the root of its own tree). */
export function instrument(cat: string, name: string, options?: InstrumentOptions): Instrument {
  return new Instrument(cat, name, options);
}

/** The args an update sets, validated; undefined when it sets none. */
function stepArgs(info: UpdateOptions): Record<string, ArgValue> | undefined {
  if (typeof info !== 'object' || info === null) throw new TypeError(`update: expected an options object; got ${String(info)}`);
  let d: Record<string, ArgValue> | undefined;
  for (const [opt, key] of STEP_KEYS) {
    const v = info[opt];
    if (v !== undefined) {
      // NaN and ±Infinity have no JSON form: the trace would hold null or an invalid line.
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`update: ${opt} must be a finite number; got ${typeof v === 'number' ? String(v) : typeof v}`);
      (d ??= {})[key] = v;
    }
  }
  if (info.args !== undefined) {
    if (typeof info.args !== 'object' || info.args === null) throw new TypeError(`update: args must be an object; got ${String(info.args)}`);
    d = { ...d, ...info.args };
  }
  return d;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * Variants with the same key write the same events: the key is the args as the trace writes them
 * (safeJson never throws; a bigint, a cycle or a throwing getter each have a fixed text).
 */
function variantKey(o: VariantOptions): string {
  return safeJson([o.enable ?? null, o.epoch ?? null, o.step ?? null, o.imageIdx ?? null, o.imageSize ?? null, o.args ?? null]);
}
