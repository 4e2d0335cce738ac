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
