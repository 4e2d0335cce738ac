import { readFileSync, readdirSync } from 'node:fs';
import { counter, finalize, initializeLog } from '@dftracer/core';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrace } from '@dftracer/testing';
import { exportPerfetto } from '../export/export-perfetto.js';
import { mergeTraces } from '../merge/merge.js';
import { queryTraces } from '../query/query.js';
import { formatSummary, summarize } from '../summary/summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';
import { validateFiles } from '../validate/validate.js';
import { leakText } from './counter-summary.js';
import type { Growth, LeakReading, Rise } from './leak.js';
import { trainingTrace } from './training-trace.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe('leakText', () => {
  const reading = (kind: LeakReading['kind'], growth: Growth | null = null, rise: Rise | null = null): LeakReading => ({ kind, growth, rise, samples: 400 });
  const growth = (rate: number): Growth => ({ rate, per: 'step', total: rate * 128, over: 2, of: 2, parts: 'epochs', from_epoch: 1, steps: 128 });

  it('a leak: the rates per step and per epoch and over how many epochs; bytes below a KiB to whole bytes', () => {
    expect(leakText(reading('leak', growth(1.3)), reading('leak', growth(147.4125159642401)), 64)).toBe('yes, +1.3 tensors / step (+83 / epoch), +147 B / step (9.21 KiB / epoch), over 2 epochs');
    expect(leakText(reading('leak', growth(1)), reading('none'), 64)).toBe('yes, +1 tensor / step (+64 / epoch), over 2 epochs');
    expect(leakText(reading('leak', { ...growth(1), over: 2, of: 4, from_epoch: 3 }), reading('none'), 64)).toBe('yes, +1 tensor / step (+64 / epoch), over the last 2 of 4 epochs (since epoch 3)');
  });

  it('a rise, too few samples, none', () => {
    const rise: Rise = { total: 40, parts: 'epochs', epoch: 2, since: { epoch: 2, step: 33 }, compared: true, prev_epoch: 1, why: 'last part only' };
    expect(leakText(reading('rising', null, rise), reading('none'), 64)).toBe(
      'none proven; rising at the end of epoch 2: +40 tensors since step 33, not seen in epoch 1 (a loader reading further ahead, or a leak that began there: more epochs would tell)',
    );
    expect(leakText(reading('too few samples'), reading('too few samples'), 64)).toMatch(/^too few samples to tell \(400 inside the steps/);
    expect(leakText(reading('none'), reading('too few samples'), 64)).toBe('none');
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
    expect(p.tfjs!.leak).toBe('leak');
    expect(p.tfjs!.verdict).toBe('yes, +3 tensors / step (+75 / epoch), +3 KiB / step (75 KiB / epoch), over 2 epochs');
    const text = formatSummary(s);
    expect(text).toMatch(/memory: rss peak 95\.4 MiB/);
    expect(text).toMatch(/\ntensor leak: yes, \+3 tensors \/ step/);

    const c = await summarize([clean]);
    expect(c.counters[0]!.tfjs!.verdict).toBe('none');
    expect(c.counters[0]!.tfjs!.leak).toBe('none');
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
    expect(s.counters.map((p) => p.tfjs!.leak)).toEqual(['leak', 'none']);
  });
});

describe('non-finite counter values (written null with a non_finite marker by the core)', () => {
  // A real trace from the core: a loss that diverges, a learning rate that stays put.
  const file = (() => {
    const logDir = join(dir, 'nonfinite');
    initializeLog({ enable: true, logFile: join(logDir, 'run'), countersIntervalMs: 0, compression: false });
    const losses = [0.5, 0.0004, NaN, Infinity, -Infinity];
    for (const loss of losses) counter('train', 'app', { loss, lr: 1e-5 });
    finalize();
    return join(logDir, readdirSync(logDir)[0]!);
  })();

  it('query reads them back as NaN and ±Infinity, the finite ones exactly; the marker is no series', async () => {
    const r = await queryTraces(`SELECT series, list(value ORDER BY ts, value) AS v FROM counters WHERE name = 'train' GROUP BY series ORDER BY series`, [file]);
    expect(r.rows).toEqual([
      ['loss', [0.5, 0.0004, NaN, Infinity, -Infinity]],
      ['lr', [1e-5, 1e-5, 1e-5, 1e-5, 1e-5]],
    ]);
  });

  it('validate accepts them; summary and export --perfetto keep to the finite values (valid JSON)', async () => {
    expect((await validateFiles([file], { threads: 0 })).files[0]!.problems).toEqual([]);
    expect((await summarize([file])).counters).toHaveLength(1);
    const out = join(dir, 'nonfinite.json');
    await exportPerfetto([file], out);
    type Ev = { ph: string; name: string; args: Record<string, number> };
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: Ev[] } | Ev[];
    const train = (Array.isArray(doc) ? doc : doc.traceEvents).filter((e) => e.ph === 'C' && e.name === 'train').map((e) => e.args);
    expect(train.map((a) => a.loss)).toEqual([0.5, 0.0004, undefined, undefined, undefined]);
    expect(train.map((a) => a.lr)).toEqual([1e-5, 1e-5, 1e-5, 1e-5, 1e-5]);
  });
});


describe('GC pauses of several threads', () => {
  /** A process over [0, 1000) µs whose threads report the GC pauses `pauses` (tid → pause_us of each reading). */
  function gcTrace(path: string, pid: number, pauses: Record<number, number[]>): string {
    const w = new TraceWriter({ path, pid });
    const t0 = 1_700_000_000_000_000;
    w.header();
    w.start(t0);
    w.complete('work', 'compute', t0 + 10, 900);
    for (const [tid, list] of Object.entries(pauses))
      list.forEach((pause, i) => w.raw(JSON.stringify({ id: w.nextIdForTest(), name: 'gc', cat: 'sys', pid, tid: Number(tid), ts: t0 + 100 * (i + 1), ph: 'C', args: { pause_us: pause, count: 1 } })));
    w.end(t0 + 1000);
    w.close();
    return path;
  }

  it('one thread: its share of the wall; several: said to be their pauses summed (here more than the wall)', async () => {
    const one = await summarize([gcTrace(join(dir, 'gc-one.pfw'), 610, { 610: [300, 200] })]);
    expect(one.counters[0]!.gc).toEqual({ pause_us: 500, count: 2, share: 0.5, threads: 1 });
    expect(formatSummary(one)).toMatch(/GC 500 µs in 2 pauses \(50\.0 % of wall\)/);
    // two isolates pausing at once: 1.1 ms of pauses in 1 ms of wall
    const two = await summarize([gcTrace(join(dir, 'gc-two.pfw'), 620, { 620: [400, 200], 621: [500] })]);
    expect(two.counters[0]!.gc).toEqual({ pause_us: 1100, count: 3, share: 1.1, threads: 2 });
    expect(formatSummary(two)).toMatch(/GC 1\.1 ms in 3 pauses on 2 threads \(their pauses summed: 110\.0 % of wall\)/);
  });
});
