import { performance } from 'node:perf_hooks';

/**
 * Integer microseconds since the epoch. `performance.timeOrigin` anchors the monotonic
 * `performance.now()` to wall time once per thread, so timestamps never go backwards when the
 * system clock is adjusted, and threads of one process share the same time base within ~1 µs.
 */
export function nowUs(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
