import { assertCountersRead, END_ROWS_SQL, type Duck } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { readJsonSql } from '../read/read-json.js';
import { createCounters } from './counter-table.js';
// The `end` events ride along in this scan, for readRunInfo (aggregated records, `"ph":"C"` with dft_cnt, are not counters).
import { fmtBytes, fmtCount, fmtDuration } from '../format/numbers.js';
import { readLeak, type Growth, type LeakReading, type Rise, type StepMark } from './leak.js';

/** Peak and mean of one series over the samples of a process. */
export interface PeakMean {
  peak: number;
  mean: number;
}

/** What the counter tracks of one process say (absent figures: no such samples). */
export interface ProcessCounters {
  pid: number;
  samples: number;
  rss?: PeakMean;
  heap_used?: PeakMean;
  /** user + system, % of one core. */
  cpu_pct?: PeakMean;
  /** Event-loop delay: mean of the per-interval p50s, and the largest delay (µs). */
  loop_delay_us?: { p50_mean: number; max: number };
  loop_utilization_mean?: number;
  /**
   * GC pause time and count over the run, and the pause time's share of the process's wall time;
   * `threads`: the threads (isolates) that reported pauses, whose pauses are summed (each pauses
   * on its own, so with several the share can exceed 1).
   */
  gc?: { pause_us: number; count: number; share: number; threads: number };
  tfjs?: TfjsMemory;
}

export interface TfjsMemory {
  peak_tensors: number;
  peak_bytes: number;
  /** Steps (distinct epoch/step args of events) the verdict was read over; 0: over time. */
  steps: number;
  /** `leak`: growth held at the same point of successive epochs to the end; `rising`: only in the last one. */
  leak: LeakReading['kind'];
  /** Growth of live tensors and of their bytes where it is a leak, else null. */
  tensors_growth: Growth | null;
  bytes_growth: Growth | null;
  /** A rise in the last epoch (or third) not seen before it, where no leak was found; else null. */
  tensors_rise: Rise | null;
  bytes_rise: Rise | null;
  /** What follows `tensor leak: `: `none`, `yes, +1 tensor / step … over 3 epochs`, `none proven; rising …`. */
  verdict: string;
}

/** Below these a steady rise is not called a leak (a cache filling, a few counters). */
const MIN_TENSORS = 3;
const MIN_BYTES = 64 * 1024;

/**
 * Reads the counter samples and step marks of `files` (one scan) into `counters` and
 * `counter_steps`, and sums them up per process. `wallUs`: each process's wall time (the GC share).
 */
export async function summarizeCounters(duck: Duck, files: string[], wallUs: ReadonlyMap<number, number>): Promise<ProcessCounters[]> {
  const src = readJsonSql(duck.stagedFor(files), { name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', ph: 'VARCHAR', args: 'JSON' });
  // only the counter records: the step marks come from the loaded events (their args as JSON, on
  // every event of a trace that tags each call with its step, made this scan the slowest part)
  await duck.scanning(() => duck.run(`CREATE OR REPLACE TEMP TABLE counter_src AS SELECT filename AS trace, ph, pid, tid, ts, cat, name, args FROM (${src})
    WHERE ph = 'C' AND name IS NOT NULL`));
  await assertCountersRead(duck, files, `SELECT trace, count(*) FROM counter_src WHERE ph = 'C' GROUP BY trace`);
  // every "ph":"C" record is counted against the load; aggregated ones (args.dft_cnt) are calls, not counters
  await createCounters(duck, `SELECT trace, pid, tid, ts, cat, name, args FROM counter_src WHERE ph = 'C' AND NOT coalesce(json_exists(args, '$.dft_cnt'), false)`, true);
  await duck.run(`CREATE OR REPLACE TEMP TABLE counter_steps AS
    SELECT pid, min(ts) AS ts, epoch, step FROM ev WHERE ph = 'X' AND step IS NOT NULL GROUP BY pid, epoch, step`);

  const stats = await duck.all(`SELECT pid,
      count(DISTINCT ts) AS samples,
      max(value) FILTER (WHERE cat = 'sys' AND name = 'memory' AND series = 'rss') AS rss_peak,
      avg(value) FILTER (WHERE cat = 'sys' AND name = 'memory' AND series = 'rss') AS rss_mean,
      max(value) FILTER (WHERE cat = 'sys' AND name = 'memory' AND series = 'heap_used') AS heap_peak,
      avg(value) FILTER (WHERE cat = 'sys' AND name = 'memory' AND series = 'heap_used') AS heap_mean,
      avg(value) FILTER (WHERE cat = 'sys' AND name = 'event_loop' AND series = 'delay_p50_us') AS delay_p50,
      max(value) FILTER (WHERE cat = 'sys' AND name = 'event_loop' AND series = 'delay_max_us') AS delay_max,
      avg(value) FILTER (WHERE cat = 'sys' AND name = 'event_loop' AND series = 'utilization') AS loop_util,
      sum(value) FILTER (WHERE cat = 'sys' AND name = 'gc' AND series = 'pause_us') AS gc_pause,
      sum(value) FILTER (WHERE cat = 'sys' AND name = 'gc' AND series = 'count') AS gc_count,
      max(value) FILTER (WHERE cat = 'tfjs' AND name = 'memory' AND series = 'num_tensors') AS tensors_peak,
      max(value) FILTER (WHERE cat = 'tfjs' AND name = 'memory' AND series = 'num_bytes') AS bytes_peak,
      count(*) FILTER (WHERE cat = 'sys' AND name = 'event_loop') AS loop_n,
      count(*) FILTER (WHERE cat = 'sys' AND name = 'gc') AS gc_n,
      count(DISTINCT (trace, tid)) FILTER (WHERE cat = 'sys' AND name = 'gc') AS gc_threads
    FROM counters WHERE isfinite(value) GROUP BY pid ORDER BY pid`);
  const cpu = new Map<number, PeakMean>();
  for (const r of await duck.all(`SELECT pid, max(v) AS peak, avg(v) AS mean FROM (
      SELECT pid, ts, sum(value) AS v FROM counters WHERE cat = 'sys' AND name = 'cpu' AND series IN ('user_pct', 'system_pct') AND isfinite(value) GROUP BY pid, tid, ts
    ) GROUP BY pid`)) {
    cpu.set(num(r.pid), { peak: num(r.peak), mean: num(r.mean) });
  }

  const out: ProcessCounters[] = [];
  for (const r of stats) {
    const pid = num(r.pid);
    const p: ProcessCounters = { pid, samples: num(r.samples) };
    if (r.rss_peak != null) p.rss = { peak: num(r.rss_peak), mean: num(r.rss_mean) };
    if (r.heap_peak != null) p.heap_used = { peak: num(r.heap_peak), mean: num(r.heap_mean) };
    const c = cpu.get(pid);
    if (c) p.cpu_pct = c;
    if (num(r.loop_n) > 0) {
      p.loop_delay_us = { p50_mean: num(r.delay_p50), max: num(r.delay_max) };
      p.loop_utilization_mean = num(r.loop_util);
    }
    if (num(r.gc_n) > 0) {
      const wall = wallUs.get(pid) ?? 0;
      p.gc = { pause_us: num(r.gc_pause), count: num(r.gc_count), share: wall > 0 ? num(r.gc_pause) / wall : 0, threads: num(r.gc_threads) };
    }
    if (r.tensors_peak != null || r.bytes_peak != null) p.tfjs = await tfjsMemory(duck, pid, num(r.tensors_peak), num(r.bytes_peak));
    out.push(p);
  }
  return out;
}

async function tfjsMemory(duck: Duck, pid: number, peakTensors: number, peakBytes: number): Promise<TfjsMemory> {
  const rows = await duck.all(`SELECT ts, max(value) FILTER (WHERE series = 'num_tensors') AS t, max(value) FILTER (WHERE series = 'num_bytes') AS b
    FROM counters WHERE pid = ${pid} AND cat = 'tfjs' AND name = 'memory' AND isfinite(value) GROUP BY ts ORDER BY ts`);
  let steps: StepMark[] = (await duck.all(`SELECT ts, epoch, step FROM counter_steps WHERE pid = ${pid} ORDER BY ts`)).map((s) => ({ ts: num(s.ts), epoch: s.epoch == null ? null : num(s.epoch), step: num(s.step) }));
  // Where steps carry epochs, events with a step and no epoch (another numbering) would interleave with them.
  if (steps.some((s) => s.epoch !== null)) steps = steps.filter((s) => s.epoch !== null);
  const series = (k: 't' | 'b') => rows.filter((r) => r[k] != null).map((r) => ({ ts: num(r.ts), v: num(r[k]) }));
  const tensors = readLeak(series('t'), steps, MIN_TENSORS);
  const bytes = readLeak(series('b'), steps, MIN_BYTES);
  return {
    peak_tensors: peakTensors,
    peak_bytes: peakBytes,
    steps: steps.length,
    leak: combined(tensors, bytes),
    tensors_growth: tensors.growth,
    bytes_growth: bytes.growth,
    tensors_rise: tensors.rise,
    bytes_rise: bytes.rise,
    verdict: leakText(tensors, bytes, stepsPerEpoch(steps)),
  };
}

/** A leak in either series is a leak; else a rise in either; `too few samples` only when both are. */
function combined(t: LeakReading, b: LeakReading): LeakReading['kind'] {
  for (const k of ['leak', 'rising', 'none'] as const) if (t.kind === k || b.kind === k) return k;
  return 'too few samples';
}

/** Median steps per epoch, or 0 when the steps carry no epoch. */
function stepsPerEpoch(steps: readonly StepMark[]): number {
  const per = new Map<number, number>();
  for (const s of steps) if (s.epoch !== null) per.set(s.epoch, (per.get(s.epoch) ?? 0) + 1);
  const counts = [...per.values()].sort((a, b) => a - b);
  return counts.length === 0 ? 0 : counts[counts.length >> 1]!;
}

const signed = (x: number, digits: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(digits).replace(/\.0+$/, '')}`;
const tensorsText = (x: number, digits: number): string => `${signed(x, digits)} tensor${signed(x, digits) === '+1' ? '' : 's'}`;

/**
 * What follows `tensor leak: ` in the summary: `none`; `yes, +1 tensor / step (+64 / epoch), +4 KiB
 * / step (256 KiB / epoch), over 3 epochs`; `none proven; rising at the end of epoch 2: +40
 * tensors since step 33, not seen in epoch 1 …`; or `too few samples to tell …`.
 */
export function leakText(tensors: LeakReading, bytes: LeakReading, perEpoch: number): string {
  const kind = combined(tensors, bytes);
  if (kind === 'none') return 'none';
  if (kind === 'too few samples') return `too few samples to tell (${tensors.samples} inside the steps; a lower DFTRACER_COUNTERS_INTERVAL_MS takes more)`;
  if (kind === 'leak') {
    const t = tensors.growth;
    const b = bytes.growth;
    const g = (t ?? b)!;
    const epoch = (rate: number, show: (x: number) => string) => (perEpoch > 0 && g.per === 'step' && g.parts === 'epochs' ? ` (${show(rate * perEpoch)} / epoch)` : '');
    const parts: string[] = [];
    if (t !== null) parts.push(`${tensorsText(t.rate, Math.abs(t.rate) < 10 ? 1 : 0)} / ${t.per}${epoch(t.rate, (x) => signed(x, 0))}`);
    if (b !== null) parts.push(`+${fmtBytes(b.rate)} / ${b.per}${epoch(b.rate, (x) => fmtBytes(x))}`);
    return `yes, ${parts.join(', ')}, ${overText(g)}`;
  }
  const t = tensors.rise;
  const b = bytes.rise;
  const r = (t ?? b)!;
  const amounts = [t !== null ? tensorsText(t.total, 0) : null, b !== null ? `+${fmtBytes(b.total)}` : null].filter((x) => x !== null).join(', ');
  const part = r.parts === 'epochs' ? `epoch ${r.epoch}` : 'the last third of the run';
  const before = r.parts === 'epochs' ? `epoch ${r.prev_epoch}` : 'the third before';
  if (r.why === 'few samples') return `none proven; ${part} sits ${amounts} above ${before} at the same points, with too few samples late in it to tell a leak from a one-off`;
  const since = r.since === null ? '' : ` since step ${r.since.step}`;
  const seen = r.compared ? `, not seen in ${before}` : '';
  return `none proven; rising at the end of ${part}: ${amounts}${since}${seen} (a loader reading further ahead, or a leak that began there: more ${r.parts === 'epochs' ? 'epochs' : 'steps'} would tell)`;
}

/** `over 3 epochs`, `over the last 2 of 4 epochs (since epoch 3)`, `over 120 steps (one epoch or none: its thirds compared)`. */
function overText(g: Growth): string {
  if (g.parts === 'epochs') return g.over === g.of ? `over ${g.over} epochs` : `over the last ${g.over} of ${g.of} epochs (since epoch ${g.from_epoch})`;
  if (g.parts === 'step thirds') return `over ${g.steps} steps (one epoch or none: its thirds compared)`;
  return 'over the run (no steps: its thirds in time compared)';
}

/** The summary's lines for the counters (empty when the traces hold none). */
export function formatCounters(ps: readonly ProcessCounters[]): string[] {
  const out: string[] = [];
  for (const p of ps) {
    const head = ps.length > 1 ? `pid ${p.pid}: ` : '';
    const mem: string[] = [];
    if (p.rss) mem.push(`rss peak ${fmtBytes(p.rss.peak)} (mean ${fmtBytes(p.rss.mean)})`);
    if (p.heap_used) mem.push(`heap peak ${fmtBytes(p.heap_used.peak)} (mean ${fmtBytes(p.heap_used.mean)})`);
    if (mem.length > 0) out.push(`${head}memory: ${mem.join('  ')}`);
    const cpu: string[] = [];
    if (p.cpu_pct) cpu.push(`CPU peak ${p.cpu_pct.peak.toFixed(0)} % (mean ${p.cpu_pct.mean.toFixed(0)} %)`);
    if (p.loop_delay_us) cpu.push(`event-loop delay p50 ${fmtDuration(p.loop_delay_us.p50_mean)}, max ${fmtDuration(p.loop_delay_us.max)}`);
    if (p.gc) {
      // several threads pause at once: their sum is a share of the wall only as a sum, said so
      const threads = p.gc.threads > 1 ? ` on ${fmtCount(p.gc.threads)} threads (their pauses summed: ` : ' (';
      cpu.push(`GC ${fmtDuration(p.gc.pause_us)} in ${fmtCount(p.gc.count)} pauses${threads}${(p.gc.share * 100).toFixed(1)} % of wall)`);
    }
    if (cpu.length > 0) out.push(`${head}${cpu.join('  ')}`);
    if (p.tfjs) {
      out.push(`${head}tfjs memory: peak ${fmtCount(p.tfjs.peak_tensors)} tensors, ${fmtBytes(p.tfjs.peak_bytes)}`);
      out.push(`${head}tensor leak: ${p.tfjs.verdict}`);
    }
  }
  return out;
}
