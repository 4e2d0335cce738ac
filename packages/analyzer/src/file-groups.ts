/**
 * Files grouped by directory: a run that reads thousands of small samples is described by its
 * directories (how many files, bytes, I/O time, the spread of bytes per file), not by five of
 * its files.
 */
import type { Duck } from './duck.js';

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

/** The table `fdir`: each file with I/O (fhash), its directory and the directory's number `did` (1, 2, …). */
export async function buildFileDirs(duck: Duck): Promise<void> {
  await duck.run(`CREATE OR REPLACE TABLE fdir AS
    WITH f AS (SELECT DISTINCT e.fhash, coalesce(fh.path, e.fhash) AS f FROM ev e LEFT JOIN fh ON e.fhash = fh.hash WHERE e.ph = 'X' AND e.kind = 1 AND e.fhash IS NOT NULL),
    d AS (SELECT fhash, ${DIR} AS dir FROM f)
    SELECT fhash, dir, dense_rank() OVER (ORDER BY dir) AS did FROM d`);
}

/**
 * Per directory of the files with I/O, most bytes first. Needs `fdir`; `busyByDir[did − 1]`: the
 * union of the I/O calls on the directory's files, per process, summed (from the summary's pass).
 */
export async function fileGroups(duck: Duck, busyByDir: ArrayLike<number>): Promise<FileGroup[]> {
  const io = `SELECT e.op, e.bytes, e.dur, e.fhash, d.did FROM ev e JOIN fdir d USING (fhash) WHERE e.ph = 'X' AND e.kind = 1`;
  const rows = await duck.all(`WITH io AS (${io}), perfile AS (
      SELECT did, fhash, count(*) AS ops, coalesce(sum(bytes) FILTER (WHERE op = 1), 0) AS r,
        coalesce(sum(bytes) FILTER (WHERE op = 2), 0) AS w, sum(dur) AS io_us
      FROM io GROUP BY did, fhash
    ), g AS (
      SELECT did, count(*) AS files, sum(ops) AS ops, sum(r) AS r, sum(w) AS w, sum(io_us) AS io_us,
        quantile_disc(r + w, 0.5) AS p50, min(r + w) AS lo, max(r + w) AS hi
      FROM perfile GROUP BY did
    )
    SELECT (SELECT any_value(dir) FROM fdir WHERE fdir.did = g.did) AS dir, g.*
    FROM g ORDER BY r + w DESC, io_us DESC, dir`);
  return rows.map((r) => ({
    dir: String(r.dir),
    files: num(r.files),
    ops: num(r.ops),
    bytes_read: num(r.r),
    bytes_written: num(r.w),
    io_us: num(r.io_us),
    busy_us: busyByDir[num(r.did) - 1] ?? 0,
    file_bytes_p50: num(r.p50),
    file_bytes_min: num(r.lo),
    file_bytes_max: num(r.hi),
  }));
}
