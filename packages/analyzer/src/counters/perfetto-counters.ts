import type { Duck } from '../read/duck.js';

/**
 * The counter samples of the loaded `counters` table as Chrome counter events, one per record:
 * `{"name":"memory","cat":"sys","ph":"C","pid":P,"tid":T,"ts":US,"args":{"rss":…}}`. Perfetto draws
 * one track per name and series under the process (NaN and ±Infinity, which JSON cannot hold, are
 * left out: a gap in the track). Returns how many were written.
 */
export async function writePerfettoCounters(duck: Duck, write: (line: string) => Promise<void>): Promise<number> {
  const rows = await duck.all(`SELECT pid, tid, ts, cat, name, to_json(map(list(series ORDER BY series), list(value ORDER BY series)))::VARCHAR AS args
    FROM counters WHERE isfinite(value) GROUP BY trace, pid, tid, ts, cat, name ORDER BY pid, ts, cat, name`);
  for (const r of rows) {
    await write(`{"name":${JSON.stringify(String(r.name))},"cat":${JSON.stringify(String(r.cat))},"ph":"C","pid":${Number(r.pid)},"tid":${Number(r.tid)},"ts":${Number(r.ts)},"args":${String(r.args)}}`);
  }
  return rows.length;
}
