/**
 * `dftracer summary`: wall time, time by cat and name, I/O bytes and bandwidth per file, I/O vs
 * compute vs overlapped time per process and in total, top files and top events. Computed by DuckDB
 * over one scan of the traces (`loadTraces`); every interval figure (busy and self time, the
 * I/O / compute split, epochs and steps, directories' busy time) comes from one pass over the
 * events sorted by process and start (`timeline/`), which holds only the events running at once.
 *
 * Definitions (all times integer µs):
 * - Kinds as dfanalyzer splits time, extended (`kindSql`): I/O = cat POSIX or STDIO (and `io`
 *   children of ai categories); compute = cat compute, dynamo, PP (and `computeCats`), or name
 *   compute, cpu or `*.compute`; `dftracer` events are the tracer's own; everything else is other.
 * - I/O time of a process: the length of the union of its I/O intervals, over all its threads.
 * - Compute time: the union of the *self time* of its compute events — each one's interval minus
 *   its children's (by p_idx, on any thread or lane) — so a span that encloses I/O (a data-loading
 *   step, an epoch) counts as computing only outside the calls it waits for.
 * - Overlap: time when both happen at once (e.g. prefetch I/O on a lane during a training step).
 * - Other: time inside other events (loop waits, epochs, readers) with neither I/O nor compute.
 * - Bytes: `ret` of read/write calls (`count` when `ret` is absent; errors count 0).
 */
import { basename } from 'node:path';
import { Duck, loadTraces, type ReadWarning, type Row } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { deviceStats, type DeviceStats } from './device.js';
import { buildFileDirs, fileGroups, fileTable, type FileGroup, type FileTable } from './file-groups.js';
import { HOST_EVENTS, nameTimes } from './name-times.js';
import { nameQuantiles, type NameQuantiles } from './name-quantiles.js';
import { keptNameSql, nameKey, NAMES_KEPT, NAME_RANK, rankNames, type NameKey, type NamesLeftOut } from './name-rank.js';
import { buildWindows, computePhases, type Phases, type WindowSources } from './phases.js';
import { formatPhases } from './phases-format.js';
import { sweepTimeline, type Timeline } from './timeline/timeline.js';
import type { FileTotals } from './timeline/group-totals.js';
import { formatCounters, summarizeCounters, type ProcessCounters } from '../counters/counter-summary.js';
import { formatRunInfo, readRunInfo, type RunInfo } from './run-info.js';
import { fmtBytes, fmtCount, fmtDuration, fmtPct, fmtRate } from '../format/numbers.js';
import { ellipsizeLeft, renderTable } from '../format/table.js';
import { terminalSafe } from '../format/terminal-safe.js';

export interface NameStats {
  cat: string;
  name: string;
  count: number;
  /** Sum of the spans' durations: overlapping and nested spans add up (can exceed wall time). */
  total_us: number;
  /** Union of its spans' intervals per process (wall time with at least one running), summed over processes. */
  busy_us: number;
  /** Union of its spans' self time (outside their children) per process, summed over processes. */
  self_us: number;
  mean_us: number;
  p50_us: number;
  p99_us: number;
  min_us: number;
  max_us: number;
  /**
   * Calls of `count` that came folded in aggregated records (DFTracer 2.2's ph 3, our `C` with
   * `dft_cnt`): counted with their summed time in count/total_us/mean_us, but not in the
   * percentiles, min/max or busy/self time (NaN, null in JSON, when every call came folded).
   */
  folded?: number;
}

export interface CatStats {
  cat: string;
  count: number;
  /** Sum over overlapping and nested spans. */
  total_us: number;
  busy_us: number;
  self_us: number;
}

export interface FileStats {
  /** Path from the FH metadata, or the hash when no FH line names it. */
  file: string;
  fhash: string;
  ops: number;
  reads: number;
  writes: number;
  bytes_read: number;
  bytes_written: number;
  read_us: number;
  write_us: number;
  io_us: number;
  /** bytes_read / read_us, in bytes per second (0 when no reads). */
  read_bandwidth: number;
  write_bandwidth: number;
  processes: number;
}

export interface TimeSplit {
  /** Union of I/O intervals. */
  io_us: number;
  /** Union of the self time of compute events (outside their children). */
  compute_us: number;
  /** I/O and compute at the same time. */
  overlap_us: number;
  io_only_us: number;
  compute_only_us: number;
  /** Inside other events (loop waits, pipeline and epoch spans, readers) with neither I/O nor compute. */
  other_us: number;
  /** Wall time inside no event at all. */
  idle_us: number;
}

export interface ProcessStats extends TimeSplit {
  pid: number;
  /** The trace file it came from. */
  trace: string;
  name: string | null;
  host: string | null;
  /** Threads with events (tids other than lanes). */
  threads: number;
  /** The tracer's async lanes with events (tids named `… async N`): tracks for overlapping async calls of a thread, not threads. */
  lanes: number;
  events: number;
  start_us: number;
  end_us: number;
  wall_us: number;
  bytes_read: number;
  bytes_written: number;
}

export interface TopEvent {
  name: string;
  cat: string;
  pid: number;
  tid: number;
  ts: number;
  dur: number;
  file: string | null;
}

export interface Summary {
  traces: string[];
  /** Complete events (start and end included). */
  events: number;
  metadata: number;
  processes: number;
  start_us: number;
  end_us: number;
  wall_us: number;
  bytes_read: number;
  bytes_written: number;
  /** Sums over processes (process time, not wall time). */
  totals: TimeSplit;
  per_process: ProcessStats[];
  by_cat: CatStats[];
  /** The `NAMES_KEPT` (or `namesKept`) names with the most time (sum of spans), most first, and any `keepNames` with events. */
  by_name: NameStats[];
  /** The names not in `by_name`, counted together. */
  names_left_out: NamesLeftOut;
  /** The files with I/O, most bytes first: the first `FILES_KEPT` (or `filesKept`). */
  files: FileStats[];
  /** Files with I/O not in `files`. */
  files_left_out: number;
  top_events: TopEvent[];
  /** Whether p50/p99 are exact or t-digest estimates (beyond 20 M events). */
  percentiles: 'exact' | 'approximate';
  /** Files with I/O grouped by directory, most bytes first. */
  file_groups: FileGroup[];
  /** Per process, epoch and step: compute, I/O, data wait, overlap, idle and a verdict. */
  phases: Phases;
  /** GPU device time, when the trace has it. */
  device: DeviceStats | null;
  /** What the counter tracks say per process (`"ph":"C"` records: memory, CPU, event loop, GC, tfjs tensors); empty without them. */
  counters: ProcessCounters[];
  /** What reading left out of the figures (events with impossible times, unreadable records, a truncated gzip), one line each. */
  warnings: ReadWarning[];
  /** What each process's `end` event says: integrations used, app metadata, settings. */
  runs: RunInfo[];
}

export interface SummaryOptions {
  /** Rows in the top-events list (default 10). */
  top?: number;
  threads?: number;
  memoryLimit?: string;
  onProgress?: (percent: number) => void;
  /** Called as the work moves on: `reading traces`, `sorting events`, `swept N of M events`, `grouping`. */
  onStage?: (stage: string) => void;
  /** Categories counted as compute besides compute, dynamo and PP. */
  computeCats?: readonly string[];
  /** Files kept in `files` (default `FILES_KEPT`); the rest are counted in `files_left_out`. */
  filesKept?: number;
  /** Steps kept in `phases.steps` (default `STEPS_KEPT`); the rest are counted in `phases.steps_left_out`. */
  stepsKept?: number;
  /** Names kept in `by_name` (default `NAMES_KEPT`); the rest are counted in `names_left_out`. */
  namesKept?: number;
  /**
   * Names kept in `by_name` besides the top `namesKept` (a comparison keeps the other run's, so
   * both sides have exact figures for them); those without events in these traces stay absent.
   */
  keepNames?: readonly NameKey[];
}

/** Files kept one by one in a summary unless asked otherwise: a run can read millions of samples. */
export const FILES_KEPT = 10_000;

/** Up to this many events, p50/p99 are exact; beyond, t-digest estimates (bounded memory). */
export const EXACT_QUANTILE_MAX = 20_000_000;

const str = (v: unknown): string | null => (v == null ? null : String(v));
/** A process by its trace and pid (a line without a pid: its trace's process -1). */
const procKey = (trace: unknown, pid: unknown) => `${num(trace)}\u0000${pid == null ? -1 : num(pid)}`;

/** Compute the summary of a set of trace files. */
export async function summarize(files: string[], opts: SummaryOptions = {}): Promise<Summary> {
  const duck = await Duck.open({ threads: opts.threads, memoryLimit: opts.memoryLimit, onProgress: opts.onProgress });
  try {
    opts.onStage?.('reading traces');
    const load = await loadTraces(duck, files, opts.computeCats ? { computeCats: opts.computeCats } : {});
    const summary = await summarizeLoaded(duck, files, opts);
    summary.warnings.push(...load.warnings);
    return summary;
  } finally {
    duck.close();
  }
}

/** The summary from the already loaded `ev`/`fh` tables. */
export async function summarizeLoaded(duck: Duck, files: string[], opts: SummaryOptions = {}): Promise<Summary> {
  // events without p_idx (older layouts) nest by time on their thread
  const [np] = await duck.all(`SELECT count(*) FILTER (WHERE p_idx IS NULL AND ph <> 'M') AS n, count(*) FILTER (WHERE ph = 'C' AND cnt IS NULL) AS counters,
    count(*) FILTER (WHERE ph = 'X') AS events, count(*) FILTER (WHERE ph = 'M') AS metadata FROM ev WHERE ph IN ('X', 'C', 'M')`);
  await buildFileDirs(duck);
  const sources = await buildWindows(duck);
  const leftOut = await rankNames(duck, opts.namesKept ?? NAMES_KEPT, opts.keepNames);
  // every interval figure comes from one sorted pass
  const stage = opts.onStage;
  const events = num(np?.events);
  stage?.(`sorting ${fmtCount(events)} events`);
  const timeline = await sweepTimeline(duck, { nest: num(np?.n) > 0, ranked: true, ...(stage ? { onRows: (n: number) => stage(`swept ${fmtCount(n)} of ${fmtCount(events)} events`) } : {}) });
  stage?.('grouping');
  const summary = await groupedSummary(duck, files, opts, timeline, sources, num(np?.metadata), leftOut);
  await addFolded(duck, files, summary);
  // counter tracks need a scan of their own (their args are not in `ev`): only when there are some
  const counted = num(np?.counters) > 0;
  if (counted) summary.counters = await summarizeCounters(duck, files, new Map(summary.per_process.map((p) => [p.pid, p.wall_us])));
  summary.runs = await readRunInfo(duck);
  return summary;
}

/**
 * Add the calls of aggregated records (`dft_cnt` calls taking `dur_sum`, their bytes) to the
 * counts, times and bytes of the summary: the sweep saw only complete events.
 */
async function addFolded(duck: Duck, files: string[], summary: Summary): Promise<void> {
  const procs = await duck.all(`SELECT trace, pid, sum(cnt) AS calls,
      coalesce(sum(bytes) FILTER (WHERE op = 1), 0) AS br, coalesce(sum(bytes) FILTER (WHERE op = 2), 0) AS bw
    FROM ev WHERE ph = 'C' AND cnt IS NOT NULL GROUP BY ALL ORDER BY ALL`);
  if (procs.length === 0) return;
  for (const r of procs) {
    const calls = num(r.calls);
    summary.events += calls;
    summary.bytes_read += num(r.br);
    summary.bytes_written += num(r.bw);
    const p = summary.per_process.find((x) => x.trace === (files[num(r.trace)] ?? '') && x.pid === num(r.pid));
    if (p) {
      p.events += calls;
      p.bytes_read += num(r.br);
      p.bytes_written += num(r.bw);
    }
  }
  // the names kept one by one (their categories counted the folded calls already, from `name_rank`)
  const names = await duck.all(`SELECT cat, name, sum(cnt) AS calls, sum(cnt_dur) AS total_us
    FROM ev e WHERE ph = 'C' AND cnt IS NOT NULL AND ${keptNameSql('e')} GROUP BY ALL ORDER BY ALL`);
  const byKey = new Map(summary.by_name.map((n) => [nameKey(n.cat, n.name), n]));
  for (const r of names) {
    const calls = num(r.calls);
    const cat = String(r.cat);
    let n = byKey.get(nameKey(cat, r.name));
    if (!n) {
      n = { cat, name: String(r.name), count: 0, total_us: 0, busy_us: 0, self_us: 0, mean_us: 0, p50_us: NaN, p99_us: NaN, min_us: NaN, max_us: NaN };
      summary.by_name.push(n);
    }
    n.count += calls;
    n.total_us += num(r.total_us);
    n.mean_us = n.count > 0 ? n.total_us / n.count : 0;
    n.folded = (n.folded ?? 0) + calls;
  }
  summary.by_name.sort((a, b) => b.total_us - a.total_us || b.count - a.count || (a.cat < b.cat ? -1 : a.cat > b.cat ? 1 : 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The grouped figures, and the interval figures of the pass. */
async function groupedSummary(duck: Duck, files: string[], opts: SummaryOptions, tl: Timeline, sources: WindowSources, metadata: number, namesLeftOut: NamesLeftOut): Promise<Summary> {
  const top = opts.top ?? 10;
  const { proc, file } = tl.totals;
  let events = 0;
  for (let g = 0; g < proc.events.length; g++) events += proc.events[g]!;

  // exact percentiles from each name's histogram of durations (integer µs: far fewer distinct
  // values than events, and grouped within DuckDB's memory limit); beyond EXACT_QUANTILE_MAX, t-digest
  const exact = events <= EXACT_QUANTILE_MAX;
  // the names kept one by one (the rest are counted in `names_left_out`, and in their categories)
  const where = `${HOST_EVENTS.replace(" AND cat <> 'dftracer'", '')} AND ${keptNameSql('ev')}`;
  // beyond EXACT_QUANTILE_MAX, t-digest estimates in SQL; else exact, streamed per name (name-quantiles.ts)
  const approx = exact ? '' : `SELECT cat, name, approx_quantile(dur, 0.5) AS p50_us, approx_quantile(dur, 0.99) AS p99_us FROM ev WHERE ${where} GROUP BY cat, name`;
  // (count, sum, min and max of the complete events were taken when the names were ranked)
  const nameRows = await duck.all(`SELECT a.cat, a.name, a.x_count AS count, a.x_total_us AS total_us, a.x_total_us / a.x_count AS mean_us, a.min_us, a.max_us${exact ? '' : ', q.p50_us, q.p99_us'}
    FROM ${NAME_RANK} a ${exact ? '' : `LEFT JOIN (${approx}) q ON q.cat IS NOT DISTINCT FROM a.cat AND q.name = a.name`}
    WHERE a.keep AND a.x_count > 0
    ORDER BY a.x_total_us DESC, a.x_count DESC, a.cat, a.name`);
  const keyOf = new Map<string, number>();
  tl.keyName.forEach((name, k) => name !== null && keyOf.set(nameKey(tl.keyCat[k], name), k));
  const quantiles = exact ? await nameQuantiles(duck, `e.ph = 'X' AND NOT coalesce(e.dev, false)`) : new Map<number, NameQuantiles>();
  const quantile = (r: Row, p: 'p50_us' | 'p99_us') => (exact ? (quantiles.get(keyOf.get(nameKey(r.cat, r.name)) ?? -1)?.[p] ?? 0) : num(r[p]));
  const ft = await fileTable(duck);
  const fileRows = topFiles(ft, file, Math.max(0, Math.floor(opts.filesKept ?? FILES_KEPT)));
  const names = await duck.all(`SELECT trace, pid, name, any_value(aname) AS aname FROM ev
    WHERE ph = 'M' AND name IN ('process_name', 'HH') GROUP BY trace, pid, name`);
  // the tracer's lanes (overlapping async calls of one thread) are tracks, not threads
  const laneRows = await duck.all(`SELECT trace, pid, count(DISTINCT tid) AS lanes FROM ev
    WHERE ph = 'M' AND name = 'thread_name' AND regexp_matches(coalesce(aname, ''), ' async [0-9]+$') GROUP BY trace, pid`);
  const lanesOf = new Map(laneRows.map((r) => [procKey(r.trace, r.pid), num(r.lanes)]));
  const topEvents = await topEventRows(duck, top);
  const device = await deviceStats(duck, top);
  const times = nameTimes(tl);
  const byName = nameRows.map(
    (r): NameStats => ({
      cat: String(r.cat),
      name: String(r.name),
      count: num(r.count),
      total_us: num(r.total_us),
      busy_us: times.byName.get(nameKey(r.cat, r.name))?.busy_us ?? 0,
      self_us: times.byName.get(nameKey(r.cat, r.name))?.self_us ?? 0,
      mean_us: num(r.mean_us),
      p50_us: quantile(r, 'p50_us'),
      p99_us: quantile(r, 'p99_us'),
      min_us: num(r.min_us),
      max_us: num(r.max_us),
    }),
  );
  // categories count every name, kept or not (folded calls included)
  const catRows = await duck.all(`SELECT cat, sum(count) AS count, sum(total_us) AS total_us FROM ${NAME_RANK} GROUP BY cat ORDER BY total_us DESC, cat`);
  const byCat = catRows.map((r): CatStats => {
    const t = times.byCat.get(String(r.cat));
    return { cat: String(r.cat), count: num(r.count), total_us: num(r.total_us), busy_us: t?.busy_us ?? 0, self_us: t?.self_us ?? 0 };
  });

  // a process without a start or an end reads 0 there, as SQL's null did
  const fin = (v: number) => (Number.isNaN(v) ? 0 : v);
  let start = NaN;
  let end = NaN;
  let bytesRead = 0;
  let bytesWritten = 0;
  const perProcess = tl.procTrace.map((trace, g): ProcessStats => {
    const k = procKey(trace, tl.procPid[g]);
    const io = tl.io[g]!;
    const comp = tl.compute[g]!;
    const wall = fin(proc.end[g]!) - fin(proc.start[g]!);
    const overlap = io + comp - tl.either[g]!;
    if (!(start <= proc.start[g]!)) start = proc.start[g]!;
    if (!(end >= proc.end[g]!)) end = proc.end[g]!;
    bytesRead += proc.bytesRead[g]!;
    bytesWritten += proc.bytesWritten[g]!;
    return {
      pid: tl.procPidNull[g] ? 0 : tl.procPid[g]!,
      trace: files[trace] ?? String(trace),
      name: str(names.find((n) => procKey(n.trace, n.pid) === k && n.name === 'process_name')?.aname),
      host: str(names.find((n) => procKey(n.trace, n.pid) === k && n.name === 'HH')?.aname),
      threads: Math.max(0, proc.threads[g]! - Math.min(proc.threads[g]!, lanesOf.get(k) ?? 0)),
      lanes: Math.min(proc.threads[g]!, lanesOf.get(k) ?? 0),
      events: proc.events[g]!,
      start_us: fin(proc.start[g]!),
      end_us: fin(proc.end[g]!),
      wall_us: wall,
      bytes_read: proc.bytesRead[g]!,
      bytes_written: proc.bytesWritten[g]!,
      io_us: io,
      compute_us: comp,
      overlap_us: overlap,
      io_only_us: io - overlap,
      compute_only_us: comp - overlap,
      other_us: tl.all[g]! - tl.either[g]!,
      idle_us: Math.max(0, wall - tl.all[g]!),
    };
  });
  const totals: TimeSplit = { io_us: 0, compute_us: 0, overlap_us: 0, io_only_us: 0, compute_only_us: 0, other_us: 0, idle_us: 0 };
  for (const p of perProcess) for (const k of Object.keys(totals) as Array<keyof TimeSplit>) totals[k] += p[k];

  const phases = await computePhases(duck, sources, { fmt: fmtDuration, ...(opts.stepsKept !== undefined ? { stepsKept: opts.stepsKept } : {}) });
  const groups = fileGroups(ft, file, tl.busyByDir);
  return {
    traces: files,
    events,
    metadata,
    processes: perProcess.length,
    start_us: fin(start),
    end_us: fin(end),
    wall_us: fin(end) - fin(start),
    bytes_read: bytesRead,
    bytes_written: bytesWritten,
    totals,
    per_process: perProcess,
    by_cat: byCat,
    by_name: byName,
    names_left_out: namesLeftOut,
    files: fileRows,
    files_left_out: ft.fhash.length - fileRows.length,
    top_events: topEvents,
    percentiles: exact ? 'exact' : 'approximate',
    file_groups: groups,
    phases,
    device,
    counters: [],
    warnings: [],
    runs: [],
  };
}

/** The `kept` files with most bytes moved (then most I/O time, then by path and hash), from the pass's per-file totals. */
function topFiles(ft: FileTable, t: FileTotals, kept: number): FileStats[] {
  const order = Array.from(ft.fhash, (_, f) => f).sort(
    (a, b) => t.bytesRead[b]! + t.bytesWritten[b]! - (t.bytesRead[a]! + t.bytesWritten[a]!) || t.ioUs[b]! - t.ioUs[a]! || (ft.path[a]! < ft.path[b]! ? -1 : ft.path[a]! > ft.path[b]! ? 1 : a - b),
  );
  return order.slice(0, kept).map(
    (f): FileStats => ({
      file: ft.path[f]!,
      fhash: ft.fhash[f]!,
      ops: t.ops[f]!,
      reads: t.reads[f]!,
      writes: t.writes[f]!,
      bytes_read: t.bytesRead[f]!,
      bytes_written: t.bytesWritten[f]!,
      read_us: t.readUs[f]!,
      write_us: t.writeUs[f]!,
      io_us: t.ioUs[f]!,
      read_bandwidth: t.readUs[f]! > 0 ? (t.bytesRead[f]! * 1e6) / t.readUs[f]! : 0,
      write_bandwidth: t.writeUs[f]! > 0 ? (t.bytesWritten[f]! * 1e6) / t.writeUs[f]! : 0,
      processes: t.processes[f]!,
    }),
  );
}

/**
 * SQL for the intervals in which each process computes: the *self time* of compute events, i.e.
 * each compute event's interval minus the union of its children's intervals (children found by
 * p_idx, on any thread or lane), clipped to the parent. Rows: trace, pid, ts, te; of the events
 * `where` selects. (`summary` computes the same in its one pass: `timeline/`.)
 */
export const computeSegmentsSql = (where = 'TRUE'): string => `WITH x AS (
    SELECT trace, pid, id, p_idx, ts, ts + dur AS te, kind FROM ev WHERE (${where}) AND ph = 'X'
  ), par AS (
    SELECT trace, pid, id, ts, te FROM x WHERE kind = 2 AND te > ts
  ), ch AS (
    SELECT c.trace, c.pid, c.p_idx AS parent, p.ts AS pts, p.te AS pte, greatest(c.ts, p.ts) AS cs, least(c.te, p.te) AS ce
    FROM x c JOIN par p ON p.trace = c.trace AND p.pid IS NOT DISTINCT FROM c.pid AND p.id = c.p_idx
    -- a child with nothing inside its parent (an async one that started after it ended) hides none of it
    WHERE c.p_idx >= 0 AND c.id IS DISTINCT FROM c.p_idx AND least(c.te, p.te) > greatest(c.ts, p.ts)
  ), g AS (
    SELECT *, max(ce) OVER (PARTITION BY trace, pid, parent ORDER BY cs, ce ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
    FROM ch
  ), seg AS (
    -- before each child: from the parent's start, or from the furthest end of the children before it
    SELECT trace, pid, greatest(prev, pts) AS ts, cs AS te FROM g
    UNION ALL
    -- after the last child
    SELECT trace, pid, max(ce) AS ts, any_value(pte) AS te FROM ch GROUP BY trace, pid, parent
    UNION ALL
    -- compute events without children: all of it
    SELECT p.trace, p.pid, p.ts, p.te FROM par p
    ANTI JOIN (SELECT DISTINCT trace, pid, parent AS id FROM ch) c ON c.trace = p.trace AND c.pid IS NOT DISTINCT FROM p.pid AND c.id = p.id
  )
  SELECT trace, pid, ts, te FROM seg WHERE te > ts`;

async function topEventRows(duck: Duck, top: number): Promise<TopEvent[]> {
  return (
    await duck.all(`SELECT e.name, e.cat, e.pid, e.tid, e.ts, e.dur, fh.path AS file FROM ev e LEFT JOIN fh ON e.fhash = fh.hash
      WHERE e.ph = 'X' AND e.kind <> 0 AND NOT coalesce(e.dev, false) ORDER BY e.dur DESC, e.ts LIMIT ${Math.max(0, Math.floor(top))}`)
  ).map(
    (r): TopEvent => ({
      name: String(r.name),
      cat: String(r.cat),
      pid: num(r.pid),
      tid: num(r.tid),
      ts: num(r.ts),
      dur: num(r.dur),
      file: str(r.file ?? null),
    }),
  );
}

/** Files listed one by one up to this many; beyond, grouped by directory (unless asked). */
export const FILES_LISTED_MAX = 20;

export interface FormatOptions {
  /** Rows of the top tables (default 10). */
  top?: number;
  /** List single files even when there are many. */
  files?: boolean;
  /** Only the epoch or the step view (with the overview lines). */
  by?: 'epoch' | 'step';
}

/** The summary as readable tables. */
export function formatSummary(s: Summary, opts: FormatOptions = {}): string {
  const top = opts.top ?? 10;
  const out: string[] = [];
  const t = s.totals;
  const ph = s.phases.totals;
  const procTime = s.per_process.reduce((a, p) => a + p.wall_us, 0);
  // with several processes the shares are of their walls summed (each can be 100 % busy at once), not of the wall time
  const processTime = s.per_process.length > 1 ? `, process time ${fmtDuration(procTime)} (each process's wall, summed: the shares are of it)` : '';
  out.push(
    `${fmtCount(s.events)} events from ${s.traces.length} trace file${s.traces.length === 1 ? '' : 's'}, ${s.processes} process${s.processes === 1 ? '' : 'es'}; wall time ${fmtDuration(s.wall_us)}${processTime}`,
  );
  out.push(
    `compute ${fmtDuration(t.compute_us)} (${fmtPct(t.compute_us, procTime)})  data wait ${fmtDuration(ph.wait_us)} (${fmtPct(ph.wait_us, procTime)})  I/O ${fmtDuration(t.io_us)} (${fmtPct(t.io_us, procTime)}, ${fmtDuration(t.overlap_us)} of it under compute)  ` +
      `other ${fmtDuration(ph.other_us)}  idle ${fmtDuration(ph.idle_us)}  read ${fmtBytes(s.bytes_read)}  written ${fmtBytes(s.bytes_written)}`,
  );
  if (ph.verdict) out.push(`verdict: ${ph.verdict}`);
  if (s.device) out.push(formatDevice(s, procTime));
  out.push(...formatCounters(s.counters ?? []));
  const run = formatRunInfo(s.runs ?? []);
  if (run) out.push(run);
  out.push('');
  if (opts.by) {
    out.push(formatPhases(s.phases, { by: opts.by, processes: s.processes, top }));
    return terminalSafe(out.join('\n'));
  }
  const phases = formatPhases(s.phases, { processes: s.processes, top: Math.min(top, 5) });
  if (phases) out.push(phases, '');
  // the split of the epoch and step views (I/O only = outside compute and data waits), so one name is one figure
  out.push('Processes (compute + data wait + I/O only + other + idle = wall, as per epoch; lanes: tracks of overlapping async calls, not threads)');
  out.push(
    renderTable(
      ['pid', 'name', 'host', 'threads', 'lanes', 'events', 'wall', 'compute', 'data wait', 'I/O only', 'other', 'idle', 'I/O (all)', 'overlap', 'read', 'written'],
      s.per_process.map((p) => {
        const f = s.phases.processes.find((x) => x.pid === p.pid && s.traces[x.trace] === p.trace);
        return [
          String(p.pid),
          ellipsizeLeft(p.name ?? basename(p.trace), 28),
          p.host ?? '',
          String(p.threads),
          String(p.lanes),
          fmtCount(p.events),
          fmtDuration(p.wall_us),
          fmtDuration(f?.compute_us ?? p.compute_us),
          fmtDuration(f?.wait_us ?? 0),
          fmtDuration(f?.io_only_us ?? p.io_only_us),
          fmtDuration(f?.other_us ?? p.other_us),
          fmtDuration(f?.idle_us ?? p.idle_us),
          fmtDuration(p.io_us),
          fmtDuration(p.overlap_us),
          fmtBytes(p.bytes_read),
          fmtBytes(p.bytes_written),
        ];
      }),
      ['r', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  out.push('');
  out.push('Time by category, most self time first (busy: wall time with at least one span running; self: outside their children; sum: over overlapping and nested spans)');
  out.push(
    renderTable(
      ['cat', 'count', 'busy', 'self', 'sum of spans'],
      [...s.by_cat]
        .filter((c) => c.cat !== 'dftracer')
        .sort((a, b) => b.self_us - a.self_us || b.busy_us - a.busy_us || (a.cat < b.cat ? -1 : a.cat > b.cat ? 1 : 0))
        .map((c) => [c.cat, fmtCount(c.count), fmtDuration(c.busy_us), fmtDuration(c.self_us), fmtDuration(c.total_us)]),
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  out.push('');
  out.push('Time by name (most self time first)');
  const estimated = s.percentiles === 'approximate';
  const names = [...s.by_name].filter((r) => r.cat !== 'dftracer').sort((a, b) => b.self_us - a.self_us || b.total_us - a.total_us);
  const shown = Math.max(top, 20);
  out.push(
    renderTable(
      ['cat', 'name', 'count', 'busy', 'self', 'sum of spans', 'mean', ...(estimated ? ['p50 ≈', 'p99 ≈'] : ['p50', 'p99']), 'max'],
      names
        .slice(0, shown)
        .map((r) => [r.cat, r.name, fmtCount(r.count), fmtDuration(r.busy_us), fmtDuration(r.self_us), fmtDuration(r.total_us), fmtDuration(r.mean_us), fmtDuration(r.p50_us), fmtDuration(r.p99_us), fmtDuration(r.max_us)]),
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  if (names.length > shown) out.push(`… ${names.length - shown} more (--json for all)`);
  if (estimated) out.push(`p50 ≈ and p99 ≈: t-digest estimates (over ${fmtCount(EXACT_QUANTILE_MAX)} events)`);
  const rest = formatNamesLeftOut(s.names_left_out);
  if (rest) out.push(rest);
  out.push('');
  const filesTotal = s.files.length + (s.files_left_out ?? 0);
  if (filesTotal === 0) out.push('Files: none (no file I/O traced)');
  else if (opts.files || filesTotal <= FILES_LISTED_MAX) {
    const listed = opts.files ? s.files.length : Math.min(top, s.files.length);
    out.push(`Files (top ${listed} of ${fmtCount(filesTotal)}, most bytes read and written first)`);
    out.push(
      renderTable(
        ['file', 'ops', 'read', 'read bw', 'written', 'write bw', 'I/O time'],
        s.files
          .slice(0, listed)
          .map((f) => [ellipsizeLeft(f.file, 48), fmtCount(f.ops), fmtBytes(f.bytes_read), fmtRate(f.read_bandwidth), fmtBytes(f.bytes_written), fmtRate(f.write_bandwidth), fmtDuration(f.io_us)]),
        ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    if (opts.files && s.files_left_out > 0) out.push(`… ${fmtCount(s.files_left_out)} more files not kept (the ${fmtCount(s.files.length)} with most bytes are listed)`);
  } else {
    const g = s.file_groups;
    out.push(`Files by directory, most bytes read and written first (${fmtCount(filesTotal)} files in ${fmtCount(g.length)} director${g.length === 1 ? 'y' : 'ies'}; --files lists them)`);
    out.push(
      renderTable(
        ['directory', 'files', 'ops', 'read', 'written', 'I/O busy', 'sum of calls', 'bytes/file p50', 'min', 'max'],
        g
          .slice(0, top)
          .map((d) => [ellipsizeLeft(d.dir, 48), fmtCount(d.files), fmtCount(d.ops), fmtBytes(d.bytes_read), fmtBytes(d.bytes_written), fmtDuration(d.busy_us), fmtDuration(d.io_us), fmtBytes(d.file_bytes_p50), fmtBytes(d.file_bytes_min), fmtBytes(d.file_bytes_max)]),
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    if (g.length > top) out.push(`… ${g.length - top} more directories (--top N, or --json for all)`);
  }
  out.push('');
  out.push(`Longest events (top ${s.top_events.length}, longest first)`);
  out.push(
    renderTable(
      ['cat', 'name', 'pid', 'tid', 'dur', 'at', 'file'],
      s.top_events.map((e) => [e.cat, e.name, String(e.pid), String(e.tid), fmtDuration(e.dur), `+${fmtDuration(e.ts - s.start_us)}`, e.file ? ellipsizeLeft(e.file, 40) : '']),
      ['l', 'l', 'r', 'r', 'r', 'r', 'l'],
    ),
  );
  return terminalSafe(out.join('\n'));
}

/** The row of the names not kept one by one: how many, their calls and time (empty when none). */
export function formatNamesLeftOut(r: NamesLeftOut | undefined): string {
  if (!r || r.names === 0) return '';
  return `${fmtCount(r.names)} other name${r.names === 1 ? '' : 's'} (not kept one by one; --names N keeps more): ${fmtCount(r.count)} calls, sum of spans ${fmtDuration(r.total_us)}`;
}

/** The device line: GPU busy time and the kernels with the most device time. */
export function formatDevice(s: Summary, procTime = s.per_process.reduce((a, p) => a + p.wall_us, 0)): string {
  const d = s.device;
  if (!d) return '';
  // (busy time summed over processes: of their walls summed, which is the wall time only with one process)
  const of = s.per_process.length > 1 ? 'process time' : 'wall';
  const busy = d.source === 'device-track' ? `busy ${fmtDuration(d.busy_us)} (${fmtPct(d.busy_us, procTime)} of ${of}) on ${d.tracks.join(', ')}; ` : '';
  const kernels = d.kernels
    .slice(0, 5)
    .map((k) => `${k.name} ${fmtDuration(k.device_us)}`)
    .join(', ');
  return `device: ${busy}top kernels by device time: ${kernels}`;
}
