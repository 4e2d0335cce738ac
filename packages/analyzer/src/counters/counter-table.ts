import type { Duck } from '../read/duck.js';

/**
 * Counter samples (`"ph":"C"` records: cat `sys` cpu/memory/event_loop/gc/io, cat `tfjs` memory, and
 * any a program adds) as the table `counters`, one row per sample and series:
 * trace, pid, tid, ts, cat, name, series (the arg's name), value (DOUBLE). `hhash` and any
 * non-numeric arg are left out. A value the core wrote as `null` with a `non_finite` marker
 * (`"loss":null,"non_finite":{"loss":"NaN"}`) is NaN or ±Infinity here, as the program had it:
 * views that sum or draw (summary, report, Perfetto) keep to `isfinite(value)`.
 */
export const COUNTERS_COLUMNS = 'trace, pid, tid, ts, cat, name, series, value';

/** `counters` from the `raw` records `loadEvents` made (query, export). */
export async function countersFromRaw(duck: Duck, materialize: boolean): Promise<void> {
  await createCounters(duck, `SELECT trace, pid, tid, ts, cat, name, args FROM raw WHERE ph = 'C' AND NOT coalesce(json_exists(args, '$.dft_cnt'), false)`, materialize);
}

/** `counters` (a table, or a view when not `materialize`) from counter records: trace, pid, tid, ts, cat, name, args. */
export async function createCounters(duck: Duck, records: string, materialize: boolean): Promise<void> {
  const key = `'"' || replace(series, '"', '\\"') || '"'`;
  await duck.run(`CREATE OR REPLACE ${materialize ? 'TEMP TABLE' : 'TEMP VIEW'} counters AS
    SELECT trace, pid, tid, ts, cat, name, series, value FROM (
      SELECT trace, pid, tid, ts, cat, name, series,
        coalesce(TRY_CAST(json_extract(args, '$.' || ${key}) AS DOUBLE), TRY_CAST(json_extract_string(args, '$.non_finite.' || ${key}) AS DOUBLE)) AS value
      FROM (SELECT *, unnest(json_keys(args)) AS series FROM (${records}) WHERE args IS NOT NULL AND json_type(args) = 'OBJECT')
      WHERE series NOT IN ('hhash', 'non_finite')
    ) WHERE value IS NOT NULL`);
}
