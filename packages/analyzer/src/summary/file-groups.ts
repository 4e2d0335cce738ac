/**
 * Files grouped by directory: a run that reads thousands of small samples is described by its
 * directories (how many files, bytes, I/O time, the spread of bytes per file), not by five of
 * its files.
 */
import type { Duck } from '../read/duck.js';
import { num } from '../read/numbers.js';

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

const DIR = `CASE WHEN strpos(f, '/') > 0 THEN coalesce(nullif(regexp_replace(f, '/[^/]*$', ''), ''), '/') ELSE '.' END`;

/**
 * The table `fdir`: each file with I/O (fhash), its path (from FH metadata, else the hash), its
 * directory, the directory's number `did` (1, 2, …) and the file's `fid` (0, 1, …).
 */
export async function buildFileDirs(duck: Duck): Promise<void> {
  await duck.run(`CREATE OR REPLACE TABLE fdir AS
    WITH f AS (SELECT e.fhash, coalesce(any_value(fh.path), e.fhash) AS f FROM ev e LEFT JOIN fh ON e.fhash = fh.hash WHERE e.ph = 'X' AND e.kind = 1 AND e.fhash IS NOT NULL GROUP BY e.fhash),
    d AS (SELECT fhash, f AS path, ${DIR} AS dir FROM f)
    SELECT fhash, path, dir, dense_rank() OVER (ORDER BY dir) AS did, (row_number() OVER (ORDER BY dir, fhash) - 1)::INTEGER AS fid FROM d`);
}

/** The files of `fdir` by `fid`: hash, path, directory number (`did`) and the directories' names by did − 1. */
export interface FileTable {
  fhash: string[];
  path: string[];
  did: Int32Array;
  dirs: string[];
}

export async function fileTable(duck: Duck): Promise<FileTable> {
  const { rows } = await duck.table(`SELECT fhash, path, did, dir FROM fdir ORDER BY fid`);
  const t: FileTable = { fhash: [], path: [], did: new Int32Array(rows.length), dirs: [] };
  rows.forEach(([fhash, path, did, dir], i) => {
    t.fhash.push(String(fhash));
    t.path.push(String(path));
    t.did[i] = num(did);
    t.dirs[num(did) - 1] = String(dir);
  });
  return t;
}

/** The per-file totals `fileGroups` needs (by fid). */
export interface FileSums {
  ops: ArrayLike<number>;
  bytesRead: ArrayLike<number>;
  bytesWritten: ArrayLike<number>;
  ioUs: ArrayLike<number>;
}

/**
 * Per directory of the files with I/O, most bytes first, from the per-file totals of the
 * summary's pass; `busyByDir[did − 1]`: the union of the I/O calls on the directory's files, per
 * process, summed (from the same pass).
 */
export function fileGroups(files: FileTable, sums: FileSums, busyByDir: ArrayLike<number>): FileGroup[] {
  const byDir = new Map<number, number[]>();
  for (let f = 0; f < files.did.length; f++) {
    const d = files.did[f]!;
    const list = byDir.get(d);
    if (list) list.push(f);
    else byDir.set(d, [f]);
  }
  const groups = [...byDir].map(([did, fids]): FileGroup => {
    const moved = Float64Array.from(fids, (f) => sums.bytesRead[f]! + sums.bytesWritten[f]!).sort();
    let ops = 0;
    let r = 0;
    let w = 0;
    let io = 0;
    for (const f of fids) {
      ops += sums.ops[f]!;
      r += sums.bytesRead[f]!;
      w += sums.bytesWritten[f]!;
      io += sums.ioUs[f]!;
    }
    return {
      dir: files.dirs[did - 1]!,
      files: fids.length,
      ops,
      bytes_read: r,
      bytes_written: w,
      io_us: io,
      busy_us: busyByDir[did - 1] ?? 0,
      // quantile_disc's median: the lower middle value
      file_bytes_p50: moved[(moved.length - 1) >> 1]!,
      file_bytes_min: moved[0]!,
      file_bytes_max: moved[moved.length - 1]!,
    };
  });
  // ties (same bytes) by name: an order a reader can see in the table
  return groups.sort((a, b) => b.bytes_read + b.bytes_written - (a.bytes_read + a.bytes_written) || (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}
