/**
 * The length of a union of intervals in SQL (sorted by start, each adds what reaches past the
 * furthest end before it: a running max in a window, which DuckDB sorts in parallel and spills),
 * for small sets such as the device-track events; the summary's figures come from one pass
 * (`timeline/`).
 */

/**
 * Union length per group: `src` yields rows with the `keys` columns and ts, te; the result has
 * the keys and `len` (µs).
 */
export function unionLengthSql(src: string, keys: readonly string[]): string {
  const k = keys.join(', ');
  return `SELECT ${k}, sum(greatest(0, te - greatest(ts, coalesce(prev, ts)))) AS len FROM (
      SELECT ${k}, ts, te, max(te) OVER (PARTITION BY ${k} ORDER BY ts, te ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
      FROM (${src}) u WHERE te > ts
    ) GROUP BY ${k}`;
}
