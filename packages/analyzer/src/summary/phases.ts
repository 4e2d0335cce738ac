/**
 * What a training run waited on, per process, per epoch and per step.
 *
 * Windows:
 * - process: its first event's start to its last event's end;
 * - epoch: `pipeline` spans named `epoch*` (ours `epoch`, pydftracer's `epoch.block`; a process
 *   with only `epoch.iter` spans uses those), else spans named `*._train` or `*.train_epoch`
 *   with an `epoch` arg (DLIO's `DLIOBenchmark._train`). A pipeline epoch's number is the epoch
 *   in force when it ended: the `epoch` arg of the last event inside it that carries one (what
 *   the program's `ai.update({ epoch })` set during it), else the span's own `epoch` arg, else its
 *   rank in the process. The span's own arg comes second: earlier dftracer.js builds took it
 *   when the block began, before the loop body's update (the previous epoch's number);
 * - step, by the first source a process has: compute events with a `step` arg (those of cat
 *   `compute` when there are any: the ai layer's forward/backward/step; other events' `step`
 *   args mean other things, as DLIO's sample indices), `ProfilerStep#N` spans, `compute`
 *   spans named `step`, spans named `*.compute` (DLIO's `TorchFramework.compute`). Steps other
 *   than profiler spans tile their epoch: a step runs from the previous step's end (or its
 *   epoch's start) to its own last event's end, so the wait for its batch belongs to it.
 *
 * Figures of a window (µs, each at most its wall time):
 * - compute: the union of the self time of compute events and of GPU device-track events;
 * - io: the union of I/O calls; overlap: I/O while computing;
 * - wait: data-loader waits (`*.iter` spans other than epochs, `dataloader`/`fetch`) while not
 *   computing;
 * - other: inside other spans' self time (preprocessing, evaluation…) with none of the above;
 * - idle: the rest of the wall time;
 * - bytes_read: bytes of the reads that start in it.
 *
 * The windows are made here (SQL, small tables); their figures come from the summary's one pass
 * over the events (`timeline/`), which walks each process's windows as time advances, so no
 * interval is ever joined to a window.
 */
import type { Duck } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { WINDOW_FIGURES } from './timeline/timeline-sweep.js';
import { WINDOW_FIGURES_TABLE } from './timeline/window-figures.js';
import { slowReason, verdict } from './verdict.js';

export interface PhaseFigures {
  wall_us: number;
  compute_us: number;
  io_us: number;
  wait_us: number;
  overlap_us: number;
  /** I/O neither under compute nor inside a data wait: compute + wait + io_only + other + idle = wall. */
  io_only_us: number;
  other_us: number;
  idle_us: number;
  bytes_read: number;
}

export type PhaseLevel = 'process' | 'epoch' | 'step';

export interface Phase extends PhaseFigures {
  level: PhaseLevel;
  /** Index of the source trace in `Summary.traces`. */
  trace: number;
  pid: number;
  label: string;
  epoch: number | null;
  step: number | null;
  start_us: number;
  end_us: number;
  verdict: string;
}

export interface SlowStep extends Phase {
  /** What made it slow: its figure furthest above the median step's. */
  reason: string;
}

export interface Phases {
  /** Where the epochs came from: `spans` (pipeline epoch spans), `args` (epoch args), or null. */
  epoch_source: 'spans' | 'args' | null;
  /** Where the steps came from: `step-arg`, `profiler`, `step-span`, `compute-span`, or null. */
  step_source: string | null;
  processes: Phase[];
  epochs: Phase[];
  /** The first `STEPS_KEPT` steps (by trace, process and time); the median and the slowest steps count all. */
  steps: Phase[];
  /** Steps not in `steps` (beyond the ones kept). */
  steps_left_out: number;
  /** Sums over processes. */
  totals: PhaseFigures & { verdict: string };
  /** The slowest steps (most wall time), each with what made it slow. */
  slowest_steps: SlowStep[];
  /** Median step figures (over all steps). */
  median_step: PhaseFigures | null;
}

/** Data-loader waits among "other" (kind 3) events: `*.iter` spans (not an epoch's own), and the ai layer's dataloader fetch. */
export const WAIT_NAME_SQL = `((name LIKE '%.iter' AND NOT (cat = 'pipeline' AND name LIKE 'epoch%')) OR (cat = 'dataloader' AND name = 'fetch'))`;
/** Spans that define windows: their own time is neither work nor waiting. */
export const WINDOW_SPAN_SQL = `(cat = 'pipeline' OR name LIKE 'ProfilerStep#%' OR name LIKE '%._train' OR name LIKE '%.train_epoch')`;

/** What the epoch and step windows were taken from (`Phases.epoch_source`, `Phases.step_source`). */
export interface WindowSources {
  epochSource: Phases['epoch_source'];
  stepSource: string | null;
}

/** Build the `win` table: every window, with a global id `wid` and its level; says where epochs and steps came from. */
export async function buildWindows(duck: Duck): Promise<WindowSources> {
  const X = `ph = 'X' AND NOT coalesce(dev, false) AND ts IS NOT NULL`;
  await duck.run(`CREATE OR REPLACE TABLE win_ep AS
    WITH ep0 AS (
      SELECT trace, coalesce(pid, -1) AS pk, ts AS ws, ts + dur AS we, name, epoch FROM ev
      WHERE ${X} AND cat = 'pipeline' AND name LIKE 'epoch%' AND dur > 0
    ), ep1 AS (
      SELECT *, bool_or(name NOT LIKE '%.iter') OVER (PARTITION BY trace, pk) AS has_body FROM ep0
    ), spans AS (
      SELECT trace, pk, ws, we, epoch, 'spans' AS src FROM ep1 WHERE NOT has_body OR name NOT LIKE '%.iter'
    ), args AS (
      -- DLIO: one DLIOBenchmark._train span per epoch, with an epoch arg
      SELECT trace, coalesce(pid, -1) AS pk, ts AS ws, ts + dur AS we, epoch, 'args' AS src FROM ev
      WHERE ${X} AND epoch IS NOT NULL AND (name LIKE '%._train' OR name LIKE '%.train_epoch') AND dur > 0
    ), chosen AS (
      SELECT * FROM spans
      UNION ALL
      SELECT a.* FROM args a ANTI JOIN (SELECT DISTINCT trace, pk FROM spans) s ON s.trace = a.trace AND s.pk = a.pk
    ), inner_ev AS (
      -- events inside a pipeline epoch span that carry the program's epoch (not epoch spans themselves)
      SELECT trace, coalesce(pid, -1) AS pk, ts, ts + dur AS te, id, epoch FROM ev
      WHERE ${X} AND epoch IS NOT NULL AND NOT (cat = 'pipeline' AND name LIKE 'epoch%')
    ), placed AS (
      SELECT i.te, i.id, i.epoch, w.trace, w.pk, w.ws, w.we
      FROM inner_ev i ASOF JOIN (SELECT trace, pk, ws, we FROM chosen WHERE src = 'spans') w ON w.trace = i.trace AND w.pk = i.pk AND w.ws <= i.ts
      WHERE i.te <= w.we
    ), last_inner AS (
      SELECT trace, pk, ws, we, arg_max(epoch, {'te': te, 'id': id}) AS epoch FROM placed GROUP BY trace, pk, ws, we
    )
    -- an epoch's number: the one in force when it ended (see the file's comment)
    SELECT c.trace, c.pk, c.ws, c.we, coalesce(l.epoch, c.epoch) AS epoch, c.src
    FROM chosen c LEFT JOIN last_inner l ON l.trace = c.trace AND l.pk = c.pk AND l.ws = c.ws AND l.we = c.we`);

  // step candidates by source, priority 1 (best) to 4; each process keeps its best source
  await duck.run(`CREATE OR REPLACE TABLE win_st AS
    WITH stepargs AS (
      SELECT trace, coalesce(pid, -1) AS pk, epoch, step, min(ts) AS s0, max(ts + dur) AS we, cat = 'compute' AS is_compute
      FROM ev WHERE ${X} AND step IS NOT NULL AND kind = 2 GROUP BY trace, pk, epoch, step, is_compute
    ), a AS (
      SELECT trace, pk, epoch, step, s0, we, 1 AS prio, true AS tile FROM stepargs s
      WHERE is_compute OR NOT EXISTS (SELECT 1 FROM stepargs c WHERE c.trace = s.trace AND c.pk = s.pk AND c.is_compute)
    ), b AS (
      SELECT trace, coalesce(pid, -1) AS pk, epoch, TRY_CAST(substr(name, 14) AS BIGINT) AS step, ts AS s0, ts + dur AS we, 2 AS prio, false AS tile
      FROM ev WHERE ${X} AND name LIKE 'ProfilerStep#%' AND dur > 0
    ), c AS (
      SELECT trace, coalesce(pid, -1) AS pk, epoch, NULL::BIGINT AS step, ts AS s0, ts + dur AS we, 3 AS prio, true AS tile
      FROM ev WHERE ${X} AND cat = 'compute' AND name = 'step' AND dur > 0
    ), d AS (
      SELECT trace, coalesce(pid, -1) AS pk, epoch, NULL::BIGINT AS step, ts AS s0, ts + dur AS we, 4 AS prio, true AS tile
      FROM ev WHERE ${X} AND name LIKE '%.compute' AND kind = 2 AND dur > 0
    ), allc AS (
      SELECT * FROM a UNION ALL SELECT * FROM b UNION ALL SELECT * FROM c UNION ALL SELECT * FROM d
    ), best AS (
      SELECT * FROM allc QUALIFY prio = min(prio) OVER (PARTITION BY trace, pk)
    ), inep AS (
      -- the epoch the step's first event falls in
      SELECT s.*, e.ws AS ews, e.we AS ewe, e.epoch AS eep FROM best s ASOF LEFT JOIN win_ep e ON e.trace = s.trace AND e.pk = s.pk AND e.ws <= s.s0
    ), placed AS (
      SELECT *, CASE WHEN ewe IS NOT NULL AND s0 < ewe THEN ews END AS in_ws, CASE WHEN ewe IS NOT NULL AND s0 < ewe THEN eep END AS in_ep FROM inep
    )
    SELECT trace, pk, coalesce(in_ep, epoch) AS epoch,
      -- unnumbered steps (spans): counted from 1 in their epoch
      coalesce(step, row_number() OVER (PARTITION BY trace, pk, in_ws ORDER BY we, s0)) AS step, prio, we,
      CASE WHEN NOT tile THEN s0
        ELSE least(s0, coalesce(lag(we) OVER (PARTITION BY trace, pk, in_ws ORDER BY we, s0), in_ws, s0)) END AS ws
    FROM placed`);

  await duck.run(`CREATE OR REPLACE TABLE win AS
    WITH raw AS (
      SELECT 'process' AS level, trace, coalesce(pid, -1) AS pk, min(ts) AS ws, max(ts + dur) AS we, NULL::BIGINT AS epoch, NULL::BIGINT AS step
      FROM ev WHERE ph = 'X' AND ts IS NOT NULL GROUP BY trace, pk
      UNION ALL SELECT 'epoch', trace, pk, ws, we, epoch, NULL FROM win_ep
      UNION ALL SELECT 'step', trace, pk, ws, we, epoch, step FROM win_st
    ), clipped AS (
      -- windows of one level must not overlap (the sweep tracks one current window per level)
      SELECT *, greatest(ws, coalesce(max(we) OVER (PARTITION BY level, trace, pk ORDER BY ws, we ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), ws)) AS cws
      FROM raw
    )
    SELECT row_number() OVER (ORDER BY level, trace, pk, cws) AS wid, level, trace, pk, cws AS ws, we, epoch, step,
      row_number() OVER (PARTITION BY level, trace, pk ORDER BY cws) AS n
    FROM clipped WHERE we > cws`);

  const [srcs] = await duck.all(`SELECT
      (SELECT any_value(src) FROM win_ep) AS ep,
      (SELECT min(prio) FROM win_st) AS st`);
  const stepNames: Record<number, string> = { 1: 'step-arg', 2: 'profiler', 3: 'step-span', 4: 'compute-span' };
  return {
    epochSource: (srcs?.ep as Phases['epoch_source']) ?? null,
    stepSource: srcs?.st == null ? null : (stepNames[num(srcs.st)] ?? null),
  };
}

const FIGURES: Array<keyof PhaseFigures> = ['wall_us', 'compute_us', 'io_us', 'wait_us', 'overlap_us', 'io_only_us', 'other_us', 'idle_us', 'bytes_read'];

/** Steps kept as objects in `Phases.steps` unless asked otherwise: a long run has hundreds of thousands. */
export const STEPS_KEPT = 10_000;

/** Each figure (`FIGURES`) as SQL over the columns of `win_fig` (`timeline/window-figures.ts`). */
const FIGURE_SQL: Record<keyof PhaseFigures, string> = {
  wall_us: 'wall',
  compute_us: 'compute',
  io_us: 'io',
  wait_us: 'wait',
  overlap_us: 'overlap',
  io_only_us: 'io_only',
  other_us: 'other',
  // idle: wall less busy
  idle_us: 'greatest(0, wall - busy)',
  bytes_read: 'bytes_read',
};

const LEVELS: PhaseLevel[] = ['process', 'epoch', 'step'];

/** The columns `windowPhases` reads, in order. */
const WINDOW_COLUMNS = ['wid', 'l', 'trace', 'pk', 'ws', 'we', 'epoch', 'step', 'n', ...FIGURES] as const;

/**
 * The windows `which` selects (a condition on `wid`, given the condition that a window is a step)
 * as phases, in the views' order: each side filtered before the join, so that neither is held
 * whole, and the rows streamed as numbers (no row objects).
 */
async function windowPhases(duck: Duck, which: (isStep: string) => string): Promise<Phase[]> {
  const nan = `'NaN'::DOUBLE`;
  const figures = FIGURES.map((k) => `(${FIGURE_SQL[k]})::DOUBLE`).join(', ');
  const sql = `SELECT wid::DOUBLE, (CASE level WHEN 'process' THEN 0 WHEN 'epoch' THEN 1 ELSE 2 END)::DOUBLE, trace::DOUBLE, pk::DOUBLE, ws::DOUBLE, we::DOUBLE,
      coalesce(epoch::DOUBLE, ${nan}), coalesce(step::DOUBLE, ${nan}), n::DOUBLE, ${figures} FROM (
      -- (a window the pass did not see reads zero)
      SELECT w.*, (w.we - w.ws)::DOUBLE AS wall, ${WINDOW_FIGURES.map((f) => `coalesce(f.${f}, 0) AS ${f}`).join(', ')}
      FROM (SELECT * FROM win WHERE ${which("level = 'step'")}) w
      LEFT JOIN (SELECT * FROM ${WINDOW_FIGURES_TABLE} WHERE ${which('level = 2')}) f ON f.wid = w.wid
    ) ORDER BY wid`;
  const out: Phase[] = [];
  await duck.chunks(sql, WINDOW_COLUMNS.length, (c, rows) => {
    const col = (k: (typeof WINDOW_COLUMNS)[number]) => c[WINDOW_COLUMNS.indexOf(k)]!;
    for (let i = 0; i < rows; i++) {
      const level = LEVELS[col('l')[i]!]!;
      const epoch = Number.isNaN(col('epoch')[i]) ? null : col('epoch')[i]!;
      const step = Number.isNaN(col('step')[i]) ? null : col('step')[i]!;
      const n = col('n')[i]!;
      const pid = col('pk')[i]!;
      const label = level === 'process' ? `pid ${pid}` : level === 'epoch' ? `epoch ${epoch ?? n}` : `step ${step ?? n}`;
      const f: Phase = {
        level,
        trace: col('trace')[i]!,
        pid,
        label: level === 'step' && epoch != null ? `epoch ${epoch} ${label}` : label,
        epoch,
        step: level === 'step' ? (step ?? n) : null,
        start_us: col('ws')[i]!,
        end_us: col('we')[i]!,
        wall_us: col('wall_us')[i]!,
        compute_us: col('compute_us')[i]!,
        io_us: col('io_us')[i]!,
        wait_us: col('wait_us')[i]!,
        overlap_us: col('overlap_us')[i]!,
        io_only_us: col('io_only_us')[i]!,
        other_us: col('other_us')[i]!,
        idle_us: col('idle_us')[i]!,
        bytes_read: col('bytes_read')[i]!,
        verdict: '',
      };
      f.verdict = verdict(f);
      out.push(f);
    }
  });
  return out;
}

/**
 * The median of each figure over every step, one figure at a time: DuckDB groups the steps by value
 * and hands the histogram over sorted (spilling like any sort), and the median is read off as it
 * passes, so no column of all the steps is held. The middle value, or the mean of the two middle ones.
 */
async function medianStep(duck: Duck): Promise<PhaseFigures | null> {
  const [count] = await duck.all(`SELECT count(*) AS n FROM ${WINDOW_FIGURES_TABLE} WHERE level = 2`);
  const steps = num(count?.n);
  if (steps === 0) return null;
  const mid = steps >> 1;
  const m = {} as PhaseFigures;
  for (const k of FIGURES) {
    // the values at sorted positions mid − 1 and mid
    let below = 0;
    let at = 0;
    let seen = 0;
    await duck.chunks(`SELECT v, count(*)::DOUBLE FROM (SELECT (${FIGURE_SQL[k]})::DOUBLE AS v FROM ${WINDOW_FIGURES_TABLE} WHERE level = 2) GROUP BY v ORDER BY v`, 2, ([vs, cs], rows) => {
      for (let i = 0; i < rows; i++) {
        const next = seen + cs![i]!;
        if (seen <= mid - 1 && mid - 1 < next) below = vs![i]!;
        if (seen <= mid && mid < next) at = vs![i]!;
        seen = next;
      }
    });
    m[k] = steps % 2 ? at : (below + at) / 2;
  }
  return m;
}

/**
 * Epoch and step views: the windows of `win` (`buildWindows`) with their figures from the summary's
 * pass (`win_fig`). Every step counts in the median and the slowest steps, but only the first
 * `stepsKept` (in trace, process and time order) are read back as objects; `steps_left_out` says
 * how many were not.
 */
export async function computePhases(duck: Duck, sources: WindowSources, opts: { slowest?: number; fmt: (us: number) => string; stepsKept?: number }): Promise<Phases> {
  const { epochSource, stepSource } = sources;
  const kept = Math.max(0, Math.ceil(opts.stepsKept ?? STEPS_KEPT));
  const slowestN = Math.max(0, Math.ceil(opts.slowest ?? 5));
  // the processes, epochs and the first steps kept (wid runs by level, trace, process and start)
  const [last] = await duck.all(`SELECT max(wid) AS w FROM (SELECT wid FROM win WHERE level = 'step' ORDER BY wid LIMIT ${kept})`);
  const processes: Phase[] = [];
  const epochs: Phase[] = [];
  const steps: Phase[] = [];
  for (const p of await windowPhases(duck, (isStep) => `NOT (${isStep}) OR wid <= ${last?.w == null ? -1 : num(last.w)}`)) {
    (p.level === 'process' ? processes : p.level === 'epoch' ? epochs : steps).push(p);
  }
  const [count] = await duck.all(`SELECT count(*) AS n FROM win WHERE level = 'step'`);
  const stepCount = num(count?.n);
  const totals = { wall_us: 0, compute_us: 0, io_us: 0, wait_us: 0, overlap_us: 0, io_only_us: 0, other_us: 0, idle_us: 0, bytes_read: 0, verdict: '' };
  for (const p of processes) for (const k of FIGURES) totals[k] += p[k];
  totals.verdict = verdict(totals);
  const m = stepCount > 0 ? await medianStep(duck) : null;
  // the slowest steps: most wall time, then the earliest start, then the first in the views' order
  const slow = m && slowestN > 0 ? await duck.all(`SELECT wid FROM win WHERE level = 'step' ORDER BY we - ws DESC, ws, wid LIMIT ${slowestN}`) : [];
  const slowPhases = slow.length > 0 ? await windowPhases(duck, (isStep) => `${isStep} AND wid IN (${slow.map((r) => num(r.wid)).join(', ')})`) : [];
  // (a stable sort of phases in wid order: ties stay in the views' order)
  slowPhases.sort((a, b) => b.wall_us - a.wall_us || a.start_us - b.start_us);
  const slowest = slowPhases.map((s): SlowStep => ({ ...s, reason: slowReason(s, m!, opts.fmt) }));
  return {
    epoch_source: epochSource,
    step_source: stepSource,
    processes,
    epochs,
    steps,
    steps_left_out: stepCount - steps.length,
    totals,
    slowest_steps: slowest,
    median_step: m,
  };
}
