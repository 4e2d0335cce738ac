import { nowUs } from '@dftracer/core';

/** A recording cycle that takes user annotations. */
export interface AnnotationSink {
  annotate(name: string, start: number, end: number): void;
}

const sinks = new Set<AnnotationSink>();

/** Cycles register while they record, so an annotation outside every active step costs one check. */
export function addSink(sink: AnnotationSink): void {
  sinks.add(sink);
}

export function removeSink(sink: AnnotationSink): void {
  sinks.delete(sink);
}

/** An open annotation: end it once (`end()`, or `using` / `await using`). */
export interface RecordFunction {
  end(): void;
  [Symbol.dispose](): void;
}

const NOOP: RecordFunction = Object.freeze({ end: () => undefined, [Symbol.dispose]: () => undefined });

function open(name: string): RecordFunction {
  if (sinks.size === 0) return NOOP;
  const to = [...sinks];
  const start = nowUs();
  let open = true;
  const end = (): void => {
    if (!open) return;
    open = false;
    const t = nowUs();
    for (const s of to) s.annotate(name, start, t);
  };
  return { end, [Symbol.dispose]: end };
}

/**
 * torch.profiler.record_function: a named region of the program (`forward`, `loss`) recorded as a
 * `user_annotation` event by every profiler recording at that moment, with the kernels it ran
 * nested inside. `recordFunction(name)` returns a handle to end (or `using r = recordFunction(…)`);
 * `recordFunction(name, fn)` runs fn and ends when it returns or its promise settles.
 */
export function recordFunction(name: string): RecordFunction;
export function recordFunction<T>(name: string, fn: () => T): T;
export function recordFunction<T>(name: string, fn?: () => T): RecordFunction | T {
  if (typeof name !== 'string' || name === '') throw new TypeError(`recordFunction: name must be a non-empty string; got ${String(name)}`);
  if (fn === undefined) return open(name);
  if (typeof fn !== 'function') throw new TypeError(`recordFunction: fn must be a function; got ${String(fn)}`);
  const r = open(name);
  let out: T;
  try {
    out = fn();
  } catch (err) {
    r.end();
    throw err;
  }
  if (out !== null && typeof out === 'object' && typeof (out as { then?: unknown }).then === 'function') {
    (out as unknown as Promise<unknown>).then(r.end, r.end);
    return out;
  }
  r.end();
  return out;
}
