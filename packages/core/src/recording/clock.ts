import { performance } from 'node:perf_hooks';

// The getter is slow (~100 ns); the origin is fixed for the life of the thread.
const ORIGIN_MS = performance.timeOrigin;

/**
 * Integer microseconds since the epoch. `performance.timeOrigin` anchors the monotonic
 * `performance.now()` to wall time once per thread, so timestamps never go backwards when the
 * system clock is adjusted, and threads of one process share the same time base within ~1 µs.
 */
export function nowUs(): number {
  return Math.floor((ORIGIN_MS + performance.now()) * 1000);
}

/**
 * nowUs() stored at `into[at]`. For hot paths: a number returned by a call that V8 does not inline
 * is boxed (16 bytes), while a double stored in a Float64Array and read back into a local is not.
 */
export function stampUs(into: Float64Array, at: number): void {
  into[at] = Math.floor((ORIGIN_MS + performance.now()) * 1000);
}

/**
 * A `performance.now()` / perf_hooks entry time (ms since timeOrigin) as integer µs on the same
 * clock as nowUs(): for times taken by perf_hooks (GC entries) or around a hot call.
 */
export function perfMsToUs(ms: number): number {
  return Math.floor((ORIGIN_MS + ms) * 1000);
}
