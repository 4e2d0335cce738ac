import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Duck, loadTraces } from '../read/duck.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { reportData } from '../report/report.js';
import { formatSummary, summarize, summarizeLoaded, type Summary } from './summary.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** Distinct names written once each (far more than kept), and a few names called several times. */
const COLD = 50_000;
const HOT = 10;
const KEPT = 100;

interface Written {
  path: string;
  /** Each name's durations, as written. */
  durs: Map<string, number[]>;
  /** Complete events written (the tracer's start and end included). */
  events: number;
}

/** Every call at its own time on one thread (no nesting, no overlap): busy = self = the sum of spans. */
function writeManyNames(path: string): Written {
  const w = new TraceWriter({ path, pid: 5151, memberBytes: 256 * 1024 });
  const durs = new Map<string, number[]>();
  const t0 = 1_700_000_000_000_000;
  w.header();
  w.start(t0);
  let t = t0 + 10;
  const call = (name: string, dur: number) => {
    w.complete(name, 'POSIX', t, dur);
    const d = durs.get(name) ?? [];
    d.push(dur);
    durs.set(name, d);
    t += dur + 1;
  };
  // hot names: three calls each, more time than any cold name (whose longest call is COLD µs)
  for (let h = 0; h < HOT; h++) for (const d of [COLD + 1000 * (h + 1), COLD + 2000 * (h + 1) + 7, COLD + 500 * (h + 1) + 3]) call(`hot-${h}`, d);
  // cold names: one call each, all durations distinct
  for (let i = 0; i < COLD; i++) call(`/data/sample-${i}.bin`, (i * 7919) % COLD + 1);
  w.end(t);
  w.close();
  return { path, durs, events: w.completeEvents };
}

const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);

describe('a trace with far more distinct names than kept', () => {
  let written: Written;
  let s: Summary;
  beforeAll(async () => {
    written = writeManyNames(join(dir, 'names.pfw.gz'));
    s = await summarize([written.path], { threads: 1, namesKept: KEPT });
  });

  /** The written names by total time, most first (all totals are distinct by construction). */
  const ranked = () => [...written.durs].map(([name, d]) => ({ name, d, total: sum(d) })).sort((a, b) => b.total - a.total);

  it('keeps the top names with exact figures', () => {
    const expected = ranked().slice(0, KEPT);
    expect(new Set(expected.map((e) => e.total)).size).toBe(KEPT);
    // (besides the tracer's own start and end, which are always kept)
    const names = s.by_name.filter((n) => n.cat !== 'dftracer');
    expect(names.map((n) => n.name)).toEqual(expected.map((e) => e.name));
    for (const [i, e] of expected.entries()) {
      const n = names[i]!;
      const sorted = [...e.d].sort((a, b) => a - b);
      expect(n).toMatchObject({ cat: 'POSIX', count: e.d.length, total_us: e.total, busy_us: e.total, self_us: e.total, min_us: sorted[0], max_us: sorted.at(-1), p50_us: sorted[(sorted.length - 1) / 2] });
    }
  });

  it('counts the rest in one row, and in their category', () => {
    const rest = ranked().slice(KEPT);
    expect(s.names_left_out).toEqual({ names: HOT + COLD - KEPT, count: sum(rest.map((r) => r.d.length)), total_us: sum(rest.map((r) => r.total)) });
    const all = [...written.durs.values()].flat();
    expect(s.by_cat.filter((c) => c.cat !== 'dftracer')).toEqual([{ cat: 'POSIX', count: all.length, total_us: sum(all), busy_us: sum(all), self_us: sum(all) }]);
    expect(s.events).toBe(written.events);
    expect(formatSummary(s)).toContain(`${(HOT + COLD - KEPT).toLocaleString('en-US')} other names (not kept one by one; --names N keeps more)`);
  });

  it("keeps the sweep's per-name state and the report's tables to the kept names", async () => {
    const duck = await Duck.open({ threads: 1 });
    try {
      await loadTraces(duck, [written.path]);
      const again = await summarizeLoaded(duck, [written.path], { namesKept: KEPT });
      expect(again.by_name).toEqual(s.by_name);
      // one key per kept name, one for the names not kept of the category (and the tracer's start and end)
      const [keys] = await duck.all(`SELECT count(*)::INTEGER AS n FROM tl_keys`);
      expect(keys?.n).toBe(KEPT + 1 + 2);
      const page = await reportData(duck, [written.path], { namesKept: KEPT, maxSlices: 1000 });
      expect(page.summary.by_name.filter((n) => n.cat !== 'dftracer')).toHaveLength(KEPT);
      expect(page.summary.names_left_out.names).toBe(HOT + COLD - KEPT);
      expect(page.names.length).toBeLessThanOrEqual(1000);
    } finally {
      duck.close();
    }
  });
});
