import type { Duck } from '../duck.js';
import { readJsonSql } from '../read-json.js';

/**
 * Counter samples (`"ph":"C"` records: cat `sys` cpu/memory/event_loop/gc/io, cat `tfjs` memory, and
 * any a program adds) as the table `counters`, one row per sample and series:
 * trace, pid, tid, ts, cat, name, series (the arg's name), value (DOUBLE). `hhash` and any
 * non-numeric arg are left out.
 */
export const COUNTERS_COLUMNS = 'trace, pid, tid, ts, cat, name, series, value';

/** `counters` from the `raw` records `loadEvents` made (query, export). */
export async function countersFromRaw(duck: Duck, materialize: boolean): Promise<void> {
  await createCounters(duck, `SELECT trace, pid, tid, ts, cat, name, args FROM raw WHERE ph = 'C'`, materialize);
}

/**
 * `counters` from the files, for commands whose scan keeps only some args (summary): one more scan,
 * for all its lines, but only counter records kept.
 */
export async function countersFromFiles(duck: Duck, files: string[]): Promise<void> {
  const src = await readJsonSql(files, { name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', ph: 'VARCHAR', args: 'JSON' }, duck.tempDir);
  await createCounters(duck, `SELECT filename AS trace, pid, tid, ts, cat, name, args FROM (${src}) WHERE ph = 'C'`, true);
}

async function createCounters(duck: Duck, records: string, materialize: boolean): Promise<void> {
  await duck.run(`CREATE OR REPLACE ${materialize ? 'TEMP TABLE' : 'TEMP VIEW'} counters AS
    SELECT trace, pid, tid, ts, cat, name, series, value FROM (
      SELECT trace, pid, tid, ts, cat, name, series,
        TRY_CAST(json_extract(args, '$."' || replace(series, '"', '\\"') || '"') AS DOUBLE) AS value
      FROM (SELECT *, unnest(json_keys(args)) AS series FROM (${records}) WHERE args IS NOT NULL AND json_type(args) = 'OBJECT')
      WHERE series <> 'hhash'
    ) WHERE value IS NOT NULL AND isfinite(value)`);
}
