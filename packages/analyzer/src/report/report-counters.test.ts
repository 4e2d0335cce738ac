import { join } from 'node:path';
import { readTrace } from '@dftracer/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { trainingTrace } from '../counters/training-trace.test-util.js';
import { Duck, loadTraces } from '../read/duck.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { counterCharts } from './report-counters.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe('counterCharts', () => {
  const file = trainingTrace(join(dir, 'training.pfw'), 2);
  // expected figures from the testing package's reader, not the analyzer's
  const records = readTrace(file);
  const spans = records.events.filter((e) => e.ph === 'X');
  const t0 = Math.min(...spans.map((e) => e.ts));
  const wall = Math.max(...spans.map((e) => e.ts + (e.dur ?? 0))) - t0;
  const samples = (cat: string, arg: string) => records.events.filter((e) => e.ph === 'C' && e.cat === cat && typeof e.args?.[arg] === 'number').map((e) => ({ x: e.ts - t0, v: e.args![arg] as number }));

  async function charts(maxPoints?: number) {
    const duck = await Duck.open({ threads: 1 });
    try {
      await loadTraces(duck, [file]);
      return await counterCharts(duck, [file], t0, wall, maxPoints);
    } finally {
      duck.close();
    }
  }

  it('gives one chart per counter group with every sample, x from t0, in time order', async () => {
    const c = await charts();
    expect(c.reducedToUs).toBe(0);
    expect(c.charts.map((x) => x.id)).toEqual(['memory', 'cpu', 'event_loop', 'gc', 'tfjs_tensors', 'tfjs_bytes']);
    const tensors = c.charts.find((x) => x.id === 'tfjs_tensors')!.series;
    expect(tensors.map((s) => [s.name, s.pid, s.cat, s.counter, s.series])).toEqual([['tensors', 4242, 'tfjs', 'memory', 'num_tensors']]);
    const want = samples('tfjs', 'num_tensors').flatMap((s) => [s.x, s.v]);
    expect(tensors[0]!.points).toEqual(want);
    expect(c.charts.find((x) => x.id === 'memory')!.series.map((s) => s.name)).toEqual(['rss', 'heap used']);
  });

  it('reduces long series to the maximum per bin, so the peak stays', async () => {
    const c = await charts(50);
    expect(c.reducedToUs).toBe(Math.ceil(wall / 50));
    const s = c.charts.find((x) => x.id === 'tfjs_tensors')!.series[0]!;
    const n = s.points.length / 2;
    expect(n).toBeGreaterThan(40);
    expect(n).toBeLessThanOrEqual(51);
    const values = s.points.filter((_, i) => i % 2 === 1);
    expect(Math.max(...values)).toBe(Math.max(...samples('tfjs', 'num_tensors').map((x) => x.v)));
  });

  it('names series by process when several processes have them', async () => {
    const other = trainingTrace(join(dir, 'other.pfw'), 0, 5151);
    const duck = await Duck.open({ threads: 1 });
    try {
      await loadTraces(duck, [file, other]);
      const c = await counterCharts(duck, [file, other], t0, wall);
      expect(c.charts.find((x) => x.id === 'cpu')!.series.map((s) => s.name)).toEqual(['user % · pid 4242', 'user % · pid 5151', 'system % · pid 4242', 'system % · pid 5151']);
    } finally {
      duck.close();
    }
  });

  it('gives no charts for a trace without counter records', async () => {
    const { writeSmallTrace } = await import('../test-util/fixtures.test-util.js');
    const small = writeSmallTrace(join(dir, 'small.pfw.gz'));
    const duck = await Duck.open({ threads: 1 });
    try {
      await loadTraces(duck, [small.path]);
      expect(await counterCharts(duck, [small.path], 0, Number.MAX_SAFE_INTEGER / 4)).toEqual({ charts: [], reducedToUs: 0 });
    } finally {
      duck.close();
    }
  });
});
