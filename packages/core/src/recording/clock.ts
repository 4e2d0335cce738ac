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
