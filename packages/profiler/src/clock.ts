import { performance } from 'node:perf_hooks';

const ORIGIN_MS = performance.timeOrigin;

/**
 * Integer µs since the epoch on the core tracer's clock (`Tracer.now()`: performance.timeOrigin +
 * performance.now()), available with tracing off too, so step windows, GC pauses and kernel times
 * share one time base whether or not a trace file is being written.
 */
export function nowUs(): number {
  return Math.floor((ORIGIN_MS + performance.now()) * 1000);
}

/** A perf_hooks entry time (ms since timeOrigin) on the same clock. */
export function perfMsToUs(ms: number): number {
  return Math.floor((ORIGIN_MS + ms) * 1000);
}
