/**
 * Exact p50 and p99 of each kept name's durations, streamed: DuckDB groups the events by (key,
 * dur) and hands the histogram over sorted (spilling past its memory limit like any sort), and the
 * quantiles are read off one key's histogram at a time. No window over all names is held (the SQL
 * windows this replaces peaked 100 MiB above the sweep at 10 M events).
 */
import type { Duck } from '../read/duck.js';
import { grown } from '../typed-arrays.js';

export interface NameQuantiles {
  p50_us: number;
  p99_us: number;
}

/**
 * The quantile q of a histogram (values ascending, their counts, n in all), interpolated between
 * the two values around (n − 1)·q exactly as DuckDB's quantile_cont does.
 */
export function histogramQuantile(values: Float64Array, counts: Float64Array, len: number, n: number, q: number): number {
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  let cum = 0;
  let vlo = NaN;
  for (let i = 0; i < len; i++) {
    cum += counts[i]!;
    if (Number.isNaN(vlo) && cum > lo) vlo = values[i]!;
    if (cum > hi) return vlo + (values[i]! - vlo) * (h - lo);
  }
  return vlo;
}

/**
 * p50 and p99 by sweep key (`tl_keys.k`) of the host events (`where`, on `ev` aliased `e`) with a
 * kept name (a key with a name). Needs `tl_name_keys` and `tl_keys` (timeline.ts).
 */
export async function nameQuantiles(duck: Duck, where: string): Promise<Map<number, NameQuantiles>> {
  const out = new Map<number, NameQuantiles>();
  let key = -1;
  let len = 0;
  let n = 0;
  let values = new Float64Array(1024);
  let counts = new Float64Array(1024);
  const flush = () => {
    if (key >= 0 && n > 0) out.set(key, { p50_us: histogramQuantile(values, counts, len, n, 0.5), p99_us: histogramQuantile(values, counts, len, n, 0.99) });
    len = 0;
    n = 0;
  };
  await duck.chunks(
    `SELECT k::DOUBLE, dur::DOUBLE, c::DOUBLE FROM (
      SELECT t.k, e.dur, count(*) AS c FROM ev e
      JOIN tl_name_keys t ON t.cat IS NOT DISTINCT FROM e.cat AND t.name = e.name
      SEMI JOIN tl_keys kk ON kk.k = t.k AND kk.name IS NOT NULL
      WHERE ${where} AND e.dur IS NOT NULL GROUP BY t.k, e.dur)
    ORDER BY 1, 2`,
    3,
    ([k, dur, c], rows) => {
      for (let i = 0; i < rows; i++) {
        if (k![i] !== key) {
          flush();
          key = k![i]!;
        }
        if (len === values.length) {
          values = grown(values, len * 2);
          counts = grown(counts, len * 2);
        }
        values[len] = dur![i]!;
        counts[len++] = c![i]!;
        n += c![i]!;
      }
    },
  );
  flush();
  return out;
}
