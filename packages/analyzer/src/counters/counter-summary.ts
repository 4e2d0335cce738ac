import { assertCountersRead, type Duck } from '../duck.js';
import { readJsonSql } from '../read-json.js';
import { createCounters } from './counter-table.js';
// The `end` events ride along in this scan, for readRunInfo (aggregated records, `"ph":"C"` with dft_cnt, are not counters).
import { END_ROWS_SQL } from '../run-info.js';
import { fmtBytes, fmtCount, fmtDuration } from '../format.js';
import { steadyGrowth, type Growth, type StepMark } from './leak.js';

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
  /** GC pause time and count over the run, and the pause time's share of the process's wall time. */
  gc?: { pause_us: number; count: number; share: number };
  tfjs?: TfjsMemory;
}

export interface TfjsMemory {
  peak_tensors: number;
  peak_bytes: number;
  /** Steps (distinct epoch/step args of events) the verdict was read over; 0: over time. */
  steps: number;
  /** Growth of live tensors and of their bytes, or null: none. */
  tensors_growth: Growth | null;
  bytes_growth: Growth | null;
  /** `none`, or the rates and where growth began. */
  verdict: string;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : v == null ? 0 : Number(v));

/** Below these a steady rise is not called a leak (a cache filling, a few counters). */
const MIN_TENSORS = 3;
const MIN_BYTES = 64 * 1024;

/**
 * Reads the counter samples and step marks of `files` (one scan) into `counters` and
 * `counter_steps`, and sums them up per process. `wallUs`: each process's wall time (the GC share).
 */
export async function summarizeCounters(duck: Duck, files: string[], wallUs: ReadonlyMap<number, number>): Promise<ProcessCounters[]> {
  const src = readJsonSql(duck.stagedFor(files), { name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', ph: 'VARCHAR', args: 'JSON' });
  await duck.run(`CREATE OR REPLACE TEMP TABLE counter_src AS SELECT filename AS trace, ph, pid, tid, ts, cat, name, args FROM (${src})
    WHERE (ph = 'C' AND name IS NOT NULL) OR (ph = 'X' AND json_exists(args, '$.step')) OR ${END_ROWS_SQL}`);
  await assertCountersRead(duck, files, `SELECT trace, count(*) FROM counter_src WHERE ph = 'C' GROUP BY trace`);
  // every "ph":"C" record is counted against the load; aggregated ones (args.dft_cnt) are calls, not counters
  await createCounters(duck, `SELECT trace, pid, tid, ts, cat, name, args FROM counter_src WHERE ph = 'C' AND NOT coalesce(json_exists(args, '$.dft_cnt'), false)`, true);
  await duck.run(`CREATE OR REPLACE TEMP TABLE counter_steps AS
    SELECT pid, min(ts) AS ts, epoch, step FROM (
      SELECT pid, ts, TRY_CAST(args ->> 'epoch' AS BIGINT) AS epoch, TRY_CAST(args ->> 'step' AS BIGINT) AS step FROM counter_src WHERE ph = 'X'
    ) WHERE step IS NOT NULL GROUP BY pid, epoch, step`);

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
      count(*) FILTER (WHERE cat = 'sys' AND name = 'gc') AS gc_n
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
      p.gc = { pause_us: num(r.gc_pause), count: num(r.gc_count), share: wall > 0 ? num(r.gc_pause) / wall : 0 };
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
  const tensors = steadyGrowth(series('t'), steps, MIN_TENSORS);
  const bytes = steadyGrowth(series('b'), steps, MIN_BYTES);
  return { peak_tensors: peakTensors, peak_bytes: peakBytes, steps: steps.length, tensors_growth: tensors, bytes_growth: bytes, verdict: leakText(tensors, bytes, stepsPerEpoch(steps)) };
}

/** Median steps per epoch, or 0 when the steps carry no epoch. */
function stepsPerEpoch(steps: readonly StepMark[]): number {
  const per = new Map<number, number>();
  for (const s of steps) if (s.epoch !== null) per.set(s.epoch, (per.get(s.epoch) ?? 0) + 1);
  const counts = [...per.values()].sort((a, b) => a - b);
  return counts.length === 0 ? 0 : counts[counts.length >> 1]!;
}

const signed = (x: number, digits: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(digits).replace(/\.0+$/, '')}`;

/** `none`, or e.g. `+1 tensors / step (+32 / epoch), +4 KiB / step (128 KiB / epoch), since step 2 of epoch 1`. */
export function leakText(tensors: Growth | null, bytes: Growth | null, perEpoch: number): string {
  if (tensors === null && bytes === null) return 'none';
  const parts: string[] = [];
  const epoch = (rate: number, show: (x: number) => string) => (perEpoch > 0 && (tensors ?? bytes)!.per === 'step' ? ` (${show(rate * perEpoch)} / epoch)` : '');
  if (tensors !== null) parts.push(`${signed(tensors.rate, Math.abs(tensors.rate) < 10 ? 1 : 0)} tensors / ${tensors.per}${epoch(tensors.rate, (x) => signed(x, 0))}`);
  if (bytes !== null) parts.push(`+${fmtBytes(bytes.rate)} / ${bytes.per}${epoch(bytes.rate, (x) => fmtBytes(x))}`);
  const began = (tensors ?? bytes)!.began;
  if (began !== null) parts.push(`since step ${began.step}${began.epoch !== null ? ` of epoch ${began.epoch}` : ''}`);
  return `leak: ${parts.join(', ')}`;
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
    if (p.gc) cpu.push(`GC ${fmtDuration(p.gc.pause_us)} in ${fmtCount(p.gc.count)} pauses (${(p.gc.share * 100).toFixed(1)} % of wall)`);
    if (cpu.length > 0) out.push(`${head}${cpu.join('  ')}`);
    if (p.tfjs) {
      out.push(`${head}tfjs memory: peak ${fmtCount(p.tfjs.peak_tensors)} tensors, ${fmtBytes(p.tfjs.peak_bytes)}`);
      out.push(`${head}tensor leak: ${p.tfjs.verdict}`);
    }
  }
  return out;
}
