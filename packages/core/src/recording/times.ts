/**
 * Times that plugins hand to the tracer (`emit`, `emitShaped`, `enter({ start })`, `exit(…, end)`)
 * are checked once, where they enter: the file holds integer µs only, so a NaN, an Infinity, a
 * fraction or a negative value never reaches it as invalid JSON, and the event is never dropped.
 */

/** Whether `t` is written as it is: a non-negative integer (NaN, ±Infinity and fractions fail). */
export function isCleanTime(t: number): boolean {
  return typeof t === 'number' && t - Math.floor(t) === 0 && t >= 0;
}

/**
 * The integer a bad time is written as: `fallback` when it is not a finite number (now for a
 * timestamp, 0 for a duration), else floored and at least 0.
 */
export function cleanTime(t: unknown, fallback: number): number {
  let n: number;
  try {
    n = typeof t === 'number' ? t : Number(t);
  } catch {
    return fallback; // a symbol, or an object whose valueOf throws
  }
  if (!Number.isFinite(n)) return fallback;
  return n <= 0 ? 0 : Math.floor(n);
}
