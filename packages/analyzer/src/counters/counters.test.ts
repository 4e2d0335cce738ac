import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrace } from '@dftracer/testing';
import { exportPerfetto } from '../export-perfetto.js';
import { mergeTraces } from '../merge.js';
import { queryTraces } from '../query.js';
import { formatSummary, summarize } from '../summary.js';
import { tempDir } from '../fixtures.test-util.js';
import { validateFiles } from '../validate.js';
import { steadyGrowth, type StepMark } from './leak.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

const HH = '0123456789abcdef';

/**
 * A trace as the core writes it: 2 epochs of `steps` training steps (10 ms each, events with epoch
 * and step args), with `sys` counters and `tfjs` memory samples 4 per step that rise and fall
 * inside a step and keep `leak` tensors (of 1 KiB each) per step after a 2-step warm-up.
 */
function trainingTrace(path: string, leak: number, pid = 4242, steps = 25): string {
  const lines = ['['];
  let id = 0;
  const rec = (o: object) => lines.push(JSON.stringify(o));
  const t0 = 1_700_000_000_000_000;
  rec({ id: ++id, name: 'HH', cat: 'dftracer', pid, tid: pid, ph: 'M', args: { hhash: HH, name: 'host', value: HH } });
  rec({ id: ++id, name: 'start', cat: 'dftracer', pid, tid: pid, ts: t0, dur: 0, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1 } });
  let ts = t0 + 1000;
  let live = 100;
  for (let epoch = 1; epoch <= 2; epoch++) {
    for (let step = 1; step <= steps; step++) {
      rec({ id: ++id, name: 'step', cat: 'compute', pid, tid: pid, ts, dur: 9000, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1, epoch, step } });
      if (epoch === 1 && step <= 2) live += 20; // the optimizer's state
      else live += leak;
      for (let k = 0; k < 4; k++) {
        const inside = k === 0 ? 0 : 7 + k; // temporaries of the step
        const at = ts + 500 + k * 2500;
        rec({ id: ++id, name: 'memory', cat: 'tfjs', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, num_tensors: live + inside, num_data_buffers: live + inside, num_bytes: (live + inside) * 1024 } });
        rec({ id: ++id, name: 'memory', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, rss: 100_000_000 + k * 1000, heap_used: 20_000_000 + k * 10 } });
        rec({ id: ++id, name: 'cpu', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, user_pct: 90, system_pct: 10 } });
        rec({ id: ++id, name: 'gc', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, pause_us: 100, count: 1 } });
        rec({ id: ++id, name: 'event_loop', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, utilization: 1, delay_p50_us: 2000, delay_max_us: 9000 } });
      }
      ts += 10_000;
    }
  }
  rec({ id: ++id, name: 'end', cat: 'dftracer', pid, tid: pid, ts, dur: 0, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1, num_events: lines.length - 1 } });
  lines.push(']');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('steadyGrowth (the tensor-leak rule)', () => {
  const steps: StepMark[] = Array.from({ length: 30 }, (_, i) => ({ ts: i * 1000, epoch: 1, step: i + 1 }));
  // samples twice per step: at its start (the floor) and mid-step (temporaries on top)
  const samples = (perStep: (k: number) => number) => steps.flatMap((s, k) => [{ ts: s.ts + 10, v: perStep(k) }, { ts: s.ts + 500, v: perStep(k) + 40 }]);

  it('finds +3 per step after a warm-up, from the step growth began in', () => {
    const g = steadyGrowth(samples((k) => (k < 3 ? 50 + 30 * k : 140 + 3 * (k - 3))), steps, 3);
    expect(g).not.toBeNull();
    expect(g!.rate).toBeCloseTo(3, 5);
    expect(g!.began).toEqual({ epoch: 1, step: 4 }); // the last warm-up jump reached step 4's value
  });

  it('calls a warm-up, a flat series, or one that rises and falls no leak', () => {
    expect(steadyGrowth(samples((k) => (k < 5 ? 10 * k : 50)), steps, 3)).toBeNull();
    expect(steadyGrowth(samples(() => 77), steps, 3)).toBeNull();
    expect(steadyGrowth(samples((k) => 100 + (k % 5) * 4), steps, 3)).toBeNull();
  });

  it('reads a leak every other step as half a tensor per step', () => {
    const g = steadyGrowth(samples((k) => 10 + Math.floor(k / 2)), steps, 3);
    expect(g!.rate).toBeCloseTo(0.5, 1);
  });
});

describe('counter records through the analyzer', () => {
  const leaking = trainingTrace(join(dir, 'leak.pfw'), 3, 4242);
  const clean = trainingTrace(join(dir, 'clean.pfw'), 0, 4343);

  it('validate accepts them (ids, field order, num_events)', async () => {
    const v = await validateFiles([leaking, clean], { threads: 0 });
    for (const f of v.files) expect(f.problems).toEqual([]);
  });

  it('summary: peaks and means, GC share of wall, and the leak verdict with its rate', async () => {
    const s = await summarize([leaking]);
    const p = s.counters[0]!;
    expect(p.rss!.peak).toBe(100_003_000);
    expect(p.cpu_pct).toEqual({ peak: 100, mean: 100 });
    expect(p.gc!.count).toBe(200);
    expect(p.gc!.share).toBeCloseTo((200 * 100) / s.per_process[0]!.wall_us, 6);
    expect(p.tfjs!.verdict).toBe('leak: +3 tensors / step (+75 / epoch), +3 KiB / step (75 KiB / epoch), since step 2 of epoch 1');
    const text = formatSummary(s);
    expect(text).toMatch(/memory: rss peak 95\.4 MiB/);
    expect(text).toMatch(/tensor leak: leak: \+3 tensors \/ step/);

    const c = await summarize([clean]);
    expect(c.counters[0]!.tfjs!.verdict).toBe('none');
    expect(formatSummary(c)).toMatch(/tensor leak: none/);
  });

  it('query exposes them as the counters table', async () => {
    const r = await queryTraces(`SELECT cat, name, series, count(*) AS n FROM counters WHERE cat = 'tfjs' GROUP BY ALL ORDER BY series`, [leaking]);
    expect(r.rows).toEqual([
      ['tfjs', 'memory', 'num_bytes', 200],
      ['tfjs', 'memory', 'num_data_buffers', 200],
      ['tfjs', 'memory', 'num_tensors', 200],
    ]);
  });

  it('export --perfetto keeps them as Chrome counter events', async () => {
    const out = join(dir, 'leak.json');
    const r = await exportPerfetto([leaking], out);
    expect(r.counters).toBe(1000);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: Array<{ ph: string; name: string; cat: string; args: Record<string, number> }> } | Array<{ ph: string; name: string; cat: string; args: Record<string, number> }>;
    const events = Array.isArray(doc) ? doc : doc.traceEvents;
    const tfjs = events.filter((e) => e.ph === 'C' && e.cat === 'tfjs');
    expect(tfjs).toHaveLength(200);
    expect(Object.keys(tfjs[0]!.args).sort()).toEqual(['num_bytes', 'num_data_buffers', 'num_tensors']);
  });

  it('survive merge (ids shifted, still valid)', async () => {
    const out = join(dir, 'merged.pfw');
    await mergeTraces([leaking, clean], out);
    const counters = readTrace(out).counters;
    expect(counters).toHaveLength(readTrace(leaking).counters.length + readTrace(clean).counters.length);
    expect(new Set(readTrace(out).events.map((e) => e.id)).size).toBe(readTrace(out).events.length);
    const v = await validateFiles([out], { threads: 0 });
    expect(v.files[0]!.problems).toEqual([]);
    const s = await summarize([out]);
    expect(s.counters.map((p) => p.tfjs!.verdict.startsWith('leak'))).toEqual([true, false]);
  });
});
