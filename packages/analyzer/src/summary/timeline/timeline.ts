/**
 * Feeds `TimelineSweep` from the loaded `ev` table: names and categories interned once as small
 * integers (`tl_keys`), processes numbered (`tl_procs`), and the events streamed out of DuckDB
 * sorted by (process, start) in chunks of numeric columns, with the epoch and step windows of `win`
 * among them — DuckDB sorts (in parallel, spilling to its temp directory), the sweep holds only
 * what runs at the current time, and each window's figures go to `win_fig` once it has passed.
 */
import type { Duck } from '../../read/duck.js';
import { num } from '../../read/numbers.js';
import { WAIT_NAME_SQL, WINDOW_SPAN_SQL } from '../phases.js';
import { TimelineSweep, type TimelineChunk, type TimelineKeys, type TimelineResult } from './timeline-sweep.js';
import { GroupTotals, KIND_WINDOW, type GroupTotalsResult } from './group-totals.js';
import { NAME_RANK } from '../name-rank.js';
import { WindowFigureWriter } from './window-figures.js';

export interface Timeline extends TimelineResult {
  /** Per process (by index) and per file (`fdir.fid`): the plain totals of the same pass. */
  totals: GroupTotalsResult;
  /** Per process: whether its pid is null (its events have none). */
  procPidNull: Uint8Array;
  /** (cat, name) of each key, and the category names; name null: the key of the names not kept (`name_rank`) of a category. */
  keyCat: Array<string | null>;
  keyName: Array<string | null>;
  catNames: Array<string | null>;
  /** Process index → (trace, pid as coalesce(pid, -1)): every process with a complete event, in (trace, pid) order. */
  procTrace: number[];
  procPid: number[];
}

/**
 * Interns keys and processes. Needs `ev`, `fdir` (file directories), `win` (windows, with
 * `level`, `trace`, `pk`, `ws`, `we`) and, when `ranked`, `name_rank`; makes `tl_keys`, `tl_name_keys`, `tl_cats` and `tl_procs`.
 */
async function intern(duck: Duck, ranked: boolean): Promise<{ keys: TimelineKeys; keyCat: Array<string | null>; keyName: Array<string | null>; catNames: Array<string | null>; procTrace: number[]; procPid: number[]; procPidNull: Uint8Array }> {
  await duck.run(`CREATE OR REPLACE TABLE tl_cats AS
    SELECT (row_number() OVER (ORDER BY cat) - 1)::INTEGER AS c, cat FROM (SELECT DISTINCT cat FROM ev WHERE ph = 'X')`);
  // every distinct (cat, name) of complete events, with its flags; a name not kept (`name_rank`) takes the
  // key shared by the names not kept of its category and flags, so the sweep's state stays bounded
  // ranked: `name_rank` has the names of the host events already (x_count > 0); only those of device
  // events need a pass over `ev` (a second grouping of a million names cost 0.8 CPU s)
  const names = ranked
    ? `SELECT cat, name, keep FROM ${NAME_RANK} WHERE x_count > 0
      UNION ALL
      SELECT d.cat, d.name, coalesce(r.keep, false) AS keep FROM (SELECT DISTINCT cat, name FROM ev WHERE ph = 'X' AND coalesce(dev, false)) d
        LEFT JOIN ${NAME_RANK} r ON r.cat IS NOT DISTINCT FROM d.cat AND r.name = d.name WHERE coalesce(r.x_count, 0) = 0`
    : `SELECT DISTINCT cat, name, true AS keep FROM ev WHERE ph = 'X'`;
  await duck.run(`CREATE OR REPLACE TABLE tl_names AS
    SELECT n.*, c.c FROM (
      SELECT cat, name, (cat <> 'dftracer') IS TRUE AS host, ${WAIT_NAME_SQL} IS TRUE AS wait,
        (${WINDOW_SPAN_SQL} IS FALSE AND ${WAIT_NAME_SQL} IS FALSE) AS other, keep
      FROM (${names})
    ) n JOIN tl_cats c ON c.cat IS NOT DISTINCT FROM n.cat`);
  await duck.run(`CREATE OR REPLACE TABLE tl_keys AS
    SELECT (row_number() OVER (ORDER BY cat NULLS FIRST, name NULLS LAST, host, wait, other) - 1)::INTEGER AS k, * FROM (
      SELECT cat, name, c, host, wait, other FROM tl_names WHERE keep
      UNION ALL
      SELECT DISTINCT cat, NULL AS name, c, host, wait, other FROM tl_names WHERE NOT keep)`);
  // (two equi-joins: one join with a condition that depends on keep compared every name with every key of its category)
  await duck.run(`CREATE OR REPLACE TABLE tl_name_keys AS
    SELECT n.cat, n.name, k.k FROM tl_names n JOIN tl_keys k ON k.cat IS NOT DISTINCT FROM n.cat AND k.name = n.name WHERE n.keep
    UNION ALL
    SELECT n.cat, n.name, k.k FROM tl_names n JOIN (SELECT * FROM tl_keys WHERE name IS NULL) k
      ON k.cat IS NOT DISTINCT FROM n.cat AND k.host = n.host AND k.wait = n.wait AND k.other = n.other WHERE NOT n.keep`);
  // every process with a complete event (with a start or not: the totals count them all)
  await duck.run(`CREATE OR REPLACE TABLE tl_procs AS
    SELECT (row_number() OVER (ORDER BY trace, pk) - 1)::INTEGER AS g, trace, pk, pid_null FROM (
      SELECT trace, coalesce(pid, -1) AS pk, bool_or(pid IS NULL) AS pid_null FROM ev WHERE ph = 'X' GROUP BY ALL)`);
  const rows = await duck.all(`SELECT k, cat, name, c, host, wait, other FROM tl_keys ORDER BY k`);
  const cats = await duck.all(`SELECT c, cat FROM tl_cats ORDER BY c`);
  const procs = await duck.all(`SELECT g, trace, pk, pid_null FROM tl_procs ORDER BY g`);
  const n = rows.length;
  const keys: TimelineKeys = { cat: new Int32Array(n), cats: cats.length, host: new Uint8Array(n), wait: new Uint8Array(n), other: new Uint8Array(n) };
  rows.forEach((r, k) => {
    keys.cat[k] = num(r.c);
    keys.host[k] = r.host ? 1 : 0;
    keys.wait[k] = r.wait ? 1 : 0;
    keys.other[k] = r.other ? 1 : 0;
  });
  return {
    keys,
    keyCat: rows.map((r) => (r.cat == null ? null : String(r.cat))),
    keyName: rows.map((r) => (r.name == null ? null : String(r.name))),
    catNames: cats.map((r) => (r.cat == null ? null : String(r.cat))),
    procTrace: procs.map((r) => num(r.trace)),
    procPid: procs.map((r) => num(r.pk)),
    procPidNull: Uint8Array.from(procs, (r) => (r.pid_null ? 1 : 0)),
  };
}

/**
 * The one pass over the loaded events. `nest`: events without p_idx nest by time on their thread.
 */
export async function sweepTimeline(duck: Duck, opts: { nest: boolean; onRows?: (swept: number) => void; ranked?: boolean }): Promise<Timeline> {
  const k = await intern(duck, opts.ranked ?? false);
  // fdir's did are dense from 1 (dense_rank): index = did − 1; its fid dense from 0
  const { columns: [fileDid] } = await duck.numbers(`SELECT did::DOUBLE FROM fdir ORDER BY fid`, [Int32Array]);
  const fileDir = fileDid.map((did) => did - 1);
  const dirs = fileDid.reduce((a, b) => Math.max(a, b), 0);
  // each window's figures go to DuckDB's `win_fig` as the sweep passes it (window-figures.ts)
  const figures = await WindowFigureWriter.open(duck);
  const sweep = new TimelineSweep({ keys: k.keys, dirs, fileDir, processes: k.procTrace.length, windowDone: figures.add, nest: opts.nest });
  const totals = new GroupTotals(k.procTrace.length, fileDid.length);
  // sorted in narrow types (DuckDB sorts the rows it carries: half the bytes spill half as much), read out as DOUBLE
  const nan = `'NaN'::DOUBLE`;
  const sql = `SELECT g::DOUBLE, coalesce(ts::DOUBLE, ${nan}), coalesce(te::DOUBLE, ${nan}), coalesce(tid::DOUBLE, ${nan}), id::DOUBLE, parent::DOUBLE, k::DOUBLE, kind::DOUBLE, bits::DOUBLE, bytes::DOUBLE, fid::DOUBLE FROM (SELECT * FROM (
    SELECT p.g AS g, e.ts, e.ts + coalesce(e.dur, 0) AS te, e.tid,
      coalesce(e.id, -1) AS id, coalesce(e.p_idx, -2) AS parent, t.k::INTEGER AS k, e.kind,
      (coalesce(e.dev, false)::UTINYINT + 2 * (e.dur IS NULL)::UTINYINT + 4 * e.op)::UTINYINT AS bits, e.bytes,
      (CASE WHEN e.kind = 1 THEN coalesce(d.fid, -1) ELSE -1 END)::INTEGER AS fid
    FROM ev e
    JOIN tl_procs p ON p.trace = e.trace AND p.pk = coalesce(e.pid, -1)
    JOIN tl_name_keys t ON t.cat IS NOT DISTINCT FROM e.cat AND t.name = e.name
    -- (a condition on e beside the key makes DuckDB's LEFT JOIN several times slower)
    LEFT JOIN fdir d ON d.fhash = e.fhash
    WHERE e.ph = 'X'
    UNION ALL
    -- the windows (process, epoch, step), each before the events that start with it: the sweep
    -- holds only those of the current time (a long run has millions of steps)
    SELECT p.g, w.ws, w.we, NULL, w.wid, -2, (CASE w.level WHEN 'process' THEN 0 WHEN 'epoch' THEN 1 ELSE 2 END)::INTEGER,
      ${KIND_WINDOW}::UTINYINT, 0::UTINYINT, 0, -1::INTEGER
    FROM win w JOIN tl_procs p ON p.trace = w.trace AND p.pk = w.pk
  ) ORDER BY g, ts NULLS LAST, kind = ${KIND_WINDOW} DESC, te DESC)`;
  let swept = 0;
  let chunks = 0;
  let result: TimelineResult;
  try {
    await duck.chunks(sql, 11, (cols, rows) => {
      const [g, ts, te, tid, id, parent, key, kind, bits, bytes, fid] = cols as Float64Array[] as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      const chunk: TimelineChunk = { rows, g, ts, te, tid, id, parent, key, kind, bits, bytes, fid };
      sweep.push(chunk);
      totals.push(chunk);
      for (let i = 0; i < rows; i++) if (kind[i] !== KIND_WINDOW) swept++;
      // every 64 chunks (about 131 000 events)
      if (opts.onRows && (++chunks & 63) === 0) opts.onRows(swept);
    });
    result = sweep.finish();
  } finally {
    figures.close();
  }
  return { ...result, totals: totals.finish(), procPidNull: k.procPidNull, keyCat: k.keyCat, keyName: k.keyName, catNames: k.catNames, procTrace: k.procTrace, procPid: k.procPid };
}
