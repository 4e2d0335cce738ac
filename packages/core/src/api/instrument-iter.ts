import { activeTracer } from './core-state.js';
import type { Instrument } from './instrument.js';
import type { SpanState, ThreadTracer } from '../recording/tracer.js';

export interface InstrumentIterOptions {
  /** Event name prefix; default the instrument's name. */
  name?: string;
  /** Arg carrying the 1-based item index; default the instrument's `iterNames.counter`. */
  counter?: string;
  /** Write the `<name>.<wait>` events (time waiting for each item). Default true. */
  includeIter?: boolean;
  /** Write the `<name>.<hold>` events (the loop body holding each item). Default true. */
  includeBlock?: boolean;
}

interface IterPlan {
  readonly wait: string | null;
  readonly hold: string | null;
  readonly counter: string;
}

/** The args of a wait whose `next()` threw: the item it was for, and the error as text. */
function failedArgs(d: Instrument, plan: IterPlan, i: number, e: unknown): ReturnType<Instrument['argsFor']> {
  return d.argsFor(undefined, undefined, { [plan.counter]: i + 1, error: errorText(e) });
}

function errorText(e: unknown): string {
  try {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  } catch {
    return 'an error that cannot be printed';
  }
}

/**
 * The args of item `i`'s events, taken when each is written: a hold's at the end of the body, so
 * an `update({ epoch })` the body makes is on its own block (as pydftracer reads them), not on the
 * next one.
 */
function countArgs(d: Instrument, plan: IterPlan, i: number): ReturnType<Instrument['argsFor']> {
  return d.argsFor(undefined, undefined, { [plan.counter]: i });
}

/** `Instrument.iter`: a generator over the iterable that times each wait and each body. */
export function traceIterable<T>(d: Instrument, iterable: Iterable<T> | AsyncIterable<T>, options: InstrumentIterOptions): Generator<T, void, undefined> | AsyncGenerator<T, void, undefined> {
  const name = options.name ?? d.name;
  const plan: IterPlan = {
    wait: options.includeIter === false ? null : `${name}.${d.iterNames.wait}`,
    hold: options.includeBlock === false ? null : `${name}.${d.iterNames.hold}`,
    counter: options.counter ?? d.iterNames.counter,
  };
  if (iterable != null && typeof (iterable as AsyncIterable<T>)[Symbol.asyncIterator] === 'function') {
    return traceAsyncIter(d, iterable as AsyncIterable<T>, plan);
  }
  if (iterable == null || typeof (iterable as Iterable<T>)[Symbol.iterator] !== 'function') {
    throw new TypeError(`iter: expected an iterable or async iterable; got ${iterable === null ? 'null' : typeof iterable}`);
  }
  return traceSyncIter(d, iterable as Iterable<T>, plan);
}

function* traceSyncIter<T>(d: Instrument, src: Iterable<T>, plan: IterPlan): Generator<T, void, undefined> {
  const it = src[Symbol.iterator]();
  let done = false;
  let i = 0;
  // The two event kinds, asked of a tracer once: they alternate, which the interner's
  // last-kind shortcut never catches.
  let kindsOf: ThreadTracer | null = null;
  let waitKind = -1;
  let holdKind = -1;
  // The consumer's async context when the loop began: each block is entered over it.
  let base: SpanState | undefined;
  let last: SpanState | null = null;
  try {
    for (;;) {
      const t = d.enabled ? activeTracer() : null;
      if (t !== null && t !== kindsOf) {
        kindsOf = t;
        d.markOn(t);
        waitKind = plan.wait === null ? -1 : t.interner.kind(plan.wait, d.cat);
        holdKind = plan.hold === null ? -1 : t.interner.kind(plan.hold, d.cat);
        // the async context storage is made here, not inside the first block's time
        if (plan.hold !== null) base = t.context();
      }
      // The wait is a span: what producing the item does (a loader's reads) nests under it. It
      // ends before the generator yields, so it is the tracer's allocation-free sync pair.
      const wait = t !== null && plan.wait !== null ? t.enterFast() : 0;
      let r: IteratorResult<T>;
      try {
        r = it.next();
      } catch (e) {
        if (wait !== 0) t!.exitFast(wait, waitKind, failedArgs(d, plan, i, e));
        done = true; // as for-of: a source whose next() threw is not asked to return
        throw e;
      }
      if (r.done) {
        done = true;
        if (wait !== 0) t!.discardFast(wait); // the end of iteration is no item: nothing to write
        return;
      }
      i++;
      if (t === null) {
        yield r.value;
        continue;
      }
      const version = d.argsVersion;
      const args = countArgs(d, plan, i);
      if (wait !== 0) t.exitFast(wait, waitKind, args);
      if (plan.hold === null) {
        yield r.value;
        continue;
      }
      // The body nests under the hold span: on the stack while it runs synchronously, and as the
      // async context of the consumer (this generator runs in its frame) across its awaits. Once
      // closed it is no parent: the next block replaces it, the loop's end gives the context back.
      const span = t.enterRegion();
      span.loop = true;
      t.enterContextOver(span, base);
      last = span;
      try {
        yield r.value;
      } finally {
        // taken now, as pydftracer does: an update the body made is on its own block
        t.exitKind(span, holdKind, d.argsVersion === version ? args : countArgs(d, plan, i));
      }
    }
  } finally {
    if (last !== null) kindsOf?.leaveContext(last);
    if (!done) it.return?.();
  }
}

async function* traceAsyncIter<T>(d: Instrument, src: AsyncIterable<T>, plan: IterPlan): AsyncGenerator<T, void, undefined> {
  const it = src[Symbol.asyncIterator]();
  let done = false;
  let i = 0;
  // The consumer's async context when the loop began: the source runs in it (its work, a
  // prefetch included, may outlive any one wait or body), and the holds nest under it.
  let base: SpanState | undefined;
  let baseOf: ThreadTracer | null = null;
  // This generator's code up to its first await runs inside the consumer's next() call, in the
  // consumer's frame: the body of the coming item gets its (pending) hold as context there,
  // before the item arrives. The hold begins when it does.
  let hold: SpanState | null;
  try {
    for (;;) {
      const t = d.enabled ? activeTracer() : null;
      if (t !== null && t !== baseOf) {
        baseOf = t;
        d.markOn(t);
        base = t.context();
      }
      const wait = t?.enterWait();
      hold = t !== null && plan.hold !== null ? t.enterPending(base) : null;
      if (hold !== null) hold.loop = true;
      let r: IteratorResult<T>;
      try {
        r = await (t === null ? it.next() : t.runInContext(base, () => it.next()));
      } catch (e) {
        // The wait is written (the error noted) and its lane returned; the error is the caller's.
        if (wait !== undefined) {
          if (plan.wait !== null) t!.exitKind(wait, t!.interner.kind(plan.wait, d.cat), failedArgs(d, plan, i, e));
          else t!.discard(wait);
        }
        done = true; // as for await: a source whose next() rejected is not asked to return
        throw e;
      }
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
      const version = d.argsVersion;
      const args = countArgs(d, plan, i);
      if (plan.wait !== null) t.exitKind(wait, t.interner.kind(plan.wait, d.cat), args);
      else t.discard(wait);
      if (hold === null) {
        yield r.value;
        continue;
      }
      t.beginPending(hold);
      try {
        yield r.value;
      } finally {
        // Closed, the hold is no parent: the consumer's code after the loop (or after a break)
        // nests under its outer context, the one the loop began in.
        t.exitKind(hold, t.interner.kind(plan.hold!, d.cat), d.argsVersion === version ? args : countArgs(d, plan, i));
      }
    }
  } finally {
    if (!done) await it.return?.();
  }
}
