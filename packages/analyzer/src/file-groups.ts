/**
 * Files grouped by directory: a run that reads thousands of small samples is described by its
 * directories (how many files, bytes, I/O time, the spread of bytes per file), not by five of
 * its files.
 */
import type { Duck } from './duck.js';
import { unionLengthSql } from './intervals-sql.js';

export interface FileGroup {
  dir: string;
  files: number;
  ops: number;
  bytes_read: number;
  bytes_written: number;
  /** Sum of the I/O calls' durations on its files. */
  io_us: number;
  /** Union of those calls' intervals per process, summed over processes. */
  busy_us: number;
  /** Bytes moved (read + written) per file: median, smallest, largest. */
  file_bytes_p50: number;
  file_bytes_min: number;
  file_bytes_max: number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : v == null ? 0 : Number(v));
const DIR = `CASE WHEN strpos(f, '/') > 0 THEN coalesce(nullif(regexp_replace(f, '/[^/]*$', ''), ''), '/') ELSE '.' END`;

/** Per directory of the files with I/O, most bytes first. */
export async function fileGroups(duck: Duck): Promise<FileGroup[]> {
  const io = `SELECT e.trace, e.pid, e.ts, e.dur, e.op, e.bytes, e.fhash, coalesce(fh.path, e.fhash) AS f
    FROM ev e LEFT JOIN fh ON e.fhash = fh.hash WHERE e.ph = 'X' AND e.kind = 1 AND e.fhash IS NOT NULL`;
  const busy = unionLengthSql(`SELECT trace, pid, ${DIR} AS dir, ts, ts + dur AS te FROM (${io})`, ['trace', 'pid', 'dir']);
  const rows = await duck.all(`WITH io AS (${io}), perfile AS (
      SELECT ${DIR} AS dir, fhash, count(*) AS ops, coalesce(sum(bytes) FILTER (WHERE op = 1), 0) AS r,
        coalesce(sum(bytes) FILTER (WHERE op = 2), 0) AS w, sum(dur) AS io_us
      FROM io GROUP BY ALL
    ), b AS (SELECT dir, sum(len) AS busy FROM (${busy}) GROUP BY dir)
    SELECT p.dir, count(*) AS files, sum(ops) AS ops, sum(r) AS r, sum(w) AS w, sum(io_us) AS io_us, any_value(b.busy) AS busy,
      quantile_disc(r + w, 0.5) AS p50, min(r + w) AS lo, max(r + w) AS hi
    FROM perfile p LEFT JOIN b USING (dir) GROUP BY p.dir ORDER BY sum(r) + sum(w) DESC, sum(io_us) DESC, p.dir`);
  return rows.map((r) => ({
    dir: String(r.dir),
    files: num(r.files),
    ops: num(r.ops),
    bytes_read: num(r.r),
    bytes_written: num(r.w),
    io_us: num(r.io_us),
    busy_us: num(r.busy),
    file_bytes_p50: num(r.p50),
    file_bytes_min: num(r.lo),
    file_bytes_max: num(r.hi),
  }));
}
