import type { CounterValues } from './counter-line.js';

/** Writes one counter record now: its name, its category and its series. */
export type EmitCounter = (name: string, cat: string, values: CounterValues) => void;

/**
 * A per-interval sampler added by another layer (the tfjs layer's tensor counts): called on the
 * program's thread with the `sys` samples, at most once per interval, where the program already
 * passes through the tracer or when its event loop turns. It must be cheap and must not trace.
 */
export type CounterSampler = (emit: EmitCounter) => void;

const KEY = Symbol.for('dftracer.core.counterSamplers');

/** This thread's samplers, shared by the ESM and CJS copies of the package. */
export function counterSamplers(): CounterSampler[] {
  const g = globalThis as { [KEY]?: CounterSampler[] };
  return (g[KEY] ??= []);
}

/**
 * Adds a sampler for every tracing session of this thread (now and later); returns the function
 * that removes it. Adding the same function twice adds it once.
 */
export function addCounterSampler(sampler: CounterSampler): () => void {
  if (typeof sampler !== 'function') throw new TypeError(`addCounterSampler: sampler must be a function; got ${typeof sampler}`);
  const list = counterSamplers();
  if (!list.includes(sampler)) list.push(sampler);
  return () => {
    const i = list.indexOf(sampler);
    if (i >= 0) list.splice(i, 1);
  };
}
