/**
 * The report's counter charts: memory, CPU, event-loop delay, GC and tfjs memory from the
 * `counters` table (`"ph":"C"` records), as small line charts on the timeline's time axis.
 */
import { countersFromFiles } from '../counters/counter-files.js';
import type { Duck } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { sqlString } from '../read/read-json.js';

/** How a chart's values read: bytes, percent, microseconds or a plain count. */
export type CounterUnit = 'bytes' | 'pct' | 'us' | 'count';

export interface CounterSeries {
  /** The legend's name, e.g. `rss` (with ` · pid N` when several processes have it). */
  name: string;
  cat: string;
  counter: string;
  /** The arg of the counter record, e.g. `heap_used`. */
  series: string;
  pid: number;
  /** Flat [x, value, x, value, …], x in µs from the page's t0, in time order. */
  points: number[];
}

export interface CounterChart {
  id: string;
  title: string;
  unit: CounterUnit;
  series: CounterSeries[];
}

export interface CounterCharts {
  charts: CounterChart[];
  /** Width (µs) of the bins samples were reduced to (their maximum per bin), or 0: every sample. */
  reducedToUs: number;
}

interface ChartSpec {
  id: string;
  title: string;
  unit: CounterUnit;
  /** [cat, counter name, arg, legend name] */
  series: ReadonlyArray<readonly [string, string, string, string]>;
}

/** The charts, in page order, and the series each draws (those without samples are left out). */
const CHARTS: readonly ChartSpec[] = [
  {
    id: 'memory',
    title: 'memory',
    unit: 'bytes',
    series: [
      ['sys', 'memory', 'rss', 'rss'],
      ['sys', 'memory', 'heap_total', 'heap total'],
      ['sys', 'memory', 'heap_used', 'heap used'],
      ['sys', 'memory', 'external', 'external'],
    ],
  },
  {
    id: 'cpu',
    title: 'CPU',
    unit: 'pct',
    series: [
      ['sys', 'cpu', 'user_pct', 'user %'],
      ['sys', 'cpu', 'system_pct', 'system %'],
    ],
  },
  {
    id: 'event_loop',
    title: 'event-loop delay',
    unit: 'us',
    series: [
      ['sys', 'event_loop', 'delay_max_us', 'max'],
      ['sys', 'event_loop', 'delay_p50_us', 'p50'],
    ],
  },
  { id: 'gc', title: 'GC pause', unit: 'us', series: [['sys', 'gc', 'pause_us', 'pause']] },
  { id: 'tfjs_tensors', title: 'tfjs tensors', unit: 'count', series: [['tfjs', 'memory', 'num_tensors', 'tensors']] },
  {
    id: 'tfjs_bytes',
    title: 'tfjs memory',
    unit: 'bytes',
    series: [
      ['tfjs', 'memory', 'num_bytes', 'bytes'],
      ['tfjs', 'memory', 'num_bytes_in_gpu', 'in GPU'],
    ],
  },
];

/**
 * The counter charts of `files` over [t0, t0 + wall] (the `counters` table, read from the files
 * unless a command made it already). A series with more samples than `maxPoints` is reduced to
 * its maximum per bin, so peaks stay visible.
 */
export async function counterCharts(duck: Duck, files: string[], t0: number, wallUs: number, maxPoints = 2000): Promise<CounterCharts> {
  const [{ n: made = 0 } = {}] = await duck.all(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'counters'`);
  if (num(made) === 0) await countersFromFiles(duck, files);
  const wanted = CHARTS.flatMap((c) => c.series.map(([cat, name, series]) => `(${sqlString(cat)}, ${sqlString(name)}, ${sqlString(series)})`));
  const src = `SELECT c.pid, c.ts, c.cat, c.name, c.series, c.value FROM counters c
    JOIN (VALUES ${wanted.join(', ')}) w(wcat, wname, wseries) ON c.cat = w.wcat AND c.name = w.wname AND c.series = w.wseries
    WHERE c.ts BETWEEN ${t0} AND ${t0 + Math.max(0, wallUs)} AND isfinite(c.value)`;
  const [{ n = 0 } = {}] = await duck.all(`SELECT max(c) AS n FROM (SELECT count(*) AS c FROM (${src}) GROUP BY pid, cat, name, series)`);
  const binUs = num(n) > maxPoints ? Math.max(1, Math.ceil(wallUs / maxPoints)) : 0;
  // several samples at one ts (threads of a process) show as one: their maximum
  const rows = await duck.all(`SELECT pid, cat, name, series, min(ts) - ${t0} AS x, max(value) AS v FROM (${src})
    GROUP BY pid, cat, name, series, ${binUs > 0 ? `(ts - ${t0}) // ${binUs}` : 'ts'} ORDER BY pid, cat, name, series, x`);

  const byKey = new Map<string, { pid: number; points: number[] }[]>();
  let last: { pid: number; points: number[] } | undefined;
  let lastKey = '';
  for (const r of rows) {
    const pid = num(r.pid);
    const key = `${String(r.cat)}\u0000${String(r.name)}\u0000${String(r.series)}`;
    if (last === undefined || key !== lastKey || last.pid !== pid) {
      last = { pid, points: [] };
      lastKey = key;
      const list = byKey.get(key) ?? [];
      list.push(last);
      byKey.set(key, list);
    }
    last.points.push(num(r.x), num(r.v));
  }

  const charts: CounterChart[] = [];
  for (const spec of CHARTS) {
    const series: CounterSeries[] = [];
    const pids = new Set<number>();
    for (const [cat, counter, arg] of spec.series) for (const s of byKey.get(`${cat}\u0000${counter}\u0000${arg}`) ?? []) pids.add(s.pid);
    for (const [cat, counter, arg, label] of spec.series) {
      for (const s of byKey.get(`${cat}\u0000${counter}\u0000${arg}`) ?? []) {
        series.push({ name: pids.size > 1 ? `${label} · pid ${s.pid}` : label, cat, counter, series: arg, pid: s.pid, points: s.points });
      }
    }
    if (series.length > 0) charts.push({ id: spec.id, title: spec.title, unit: spec.unit, series });
  }
  return { charts, reducedToUs: binUs };
}
