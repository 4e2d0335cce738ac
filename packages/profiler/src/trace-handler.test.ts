import { dftFn, finalize, initializeLog } from '@dftracer/core';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProfilerActivity } from './activity.js';
import type { ProfilerEvent } from './events.js';
import { profile } from './profiler.js';
import { schedule } from './schedule.js';
import { traceHandler } from './trace-handler.js';
import { overlaps, readTrace, tempDir, type TraceEvent } from '@dftracer/testing';
import { clockUs, smallCnn, tf } from './tfjs.test-util.js';

const INT_ARGS = ['device', 'cpu_memory', 'is_remote', 'device_memory_usage', 'input_size'];
const FLOAT_ARGS = ['total_cpu_percent', 'total_device_percent'];

let trace: TraceEvent[];
let recorded: readonly ProfilerEvent[];
let activeWindow: { start: number; end: number };
let stepWindows: Map<number, { start: number; end: number }>;
let ownEvents = 0;

// The seed's "Combining with I/O tracing": traced data loads, profiler steps and the fs tracer, one file.
beforeAll(async () => {
  const cnn = await smallCnn();
  cnn.trainStep();
  const dir = tempDir();
  const data = join(dir, 'data');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(data);
  for (let i = 0; i < 6; i++) writeFileSync(join(data, `item-${i}.bin`), Buffer.alloc(4096, i));

  // A profiled cycle handed to traceHandler before tracing starts writes nothing and throws nothing.
  const early = profile({ tf, onTraceReady: traceHandler });
  early.start();
  cnn.trainStep();
  await early.stop();

  const log = initializeLog({ enable: true, logFile: join(dir, 'combined'), dataDir: data, compression: false });
  const load = dftFn('data').log(function loadItem(i: number) {
    return readFileSync(join(data, `item-${i}.bin`));
  });
  const p = profile({
    tf,
    activities: [ProfilerActivity.CPU, ProfilerActivity.GPU],
    schedule: schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 }),
    onTraceReady: traceHandler,
    recordShapes: true,
    profileMemory: true,
    withStack: true,
  });
  stepWindows = new Map();
  p.start();
  for (let step = 0; step < 6; step++) {
    const start = clockUs();
    load(step);
    // An async read in flight across the step's kernels takes an async lane of its own.
    const pending = readFile(join(data, `item-${(step + 1) % 6}.bin`));
    cnn.trainStep();
    await pending;
    stepWindows.set(step, { start, end: clockUs() });
    p.step();
  }
  await p.stop();
  recorded = p.events();
  // A handler of the program's own that calls traceHandler: the cycle still lands in the trace.
  const own = profile({ tf, onTraceReady: (r) => { ownEvents = r.events().length; traceHandler(r); } });
  own.start();
  tf.tidy(() => tf.ones([2, 2]).matMul(tf.ones([2, 2])));
  await own.stop();
  activeWindow = { start: stepWindows.get(2)!.start, end: stepWindows.get(3)!.end };
  finalize();
  cnn.dispose();
  trace = readTrace(log.file!).complete;
});

// The scheduled cycle's events (the second cycle, from the program's own handler, is checked apart).
const cycles = (): TraceEvent[] => trace.filter((e) => e.name === 'profiler.cycle').sort((a, b) => a.ts - b.ts);
const pp = (): TraceEvent[] => trace.filter((e) => e.cat === 'PP' && e.ts < cycles()[1]!.ts);

describe('traceHandler', () => {
  it('writes every profiled event of the active steps as cat PP, once', () => {
    expect(recorded.length).toBeGreaterThan(100);
    expect(pp()).toHaveLength(recorded.length);
    expect(pp().map((e) => e.name).sort()).toEqual(recorded.map((e) => e.name).sort());
    expect(cycles()).toHaveLength(2);
    const second = trace.filter((e) => e.cat === 'PP' && e.ts >= cycles()[1]!.ts);
    expect(second.length).toBe(ownEvents);
    expect(second.map((e) => e.name)).toContain('BatchMatMul');
    expect(trace.find((e) => e.name === 'end' && e.cat === 'dftracer')!.args.plugins).toContain('PP');
  });

  it('gives every PP event the 5 int and 2 float args as numbers', () => {
    for (const e of pp()) {
      for (const k of INT_ARGS) {
        expect(typeof e.args[k], `${e.name}.${k}`).toBe('number');
        expect(Number.isInteger(e.args[k]), `${e.name}.${k}`).toBe(true);
      }
      for (const k of FLOAT_ARGS) expect(typeof e.args[k], `${e.name}.${k}`).toBe('number');
      expect(e.args.device).toBe(0);
      expect(e.args.is_remote).toBe(0);
    }
    const conv = pp().find((e) => e.name === 'Conv2D')!;
    expect(conv.args.input_size).toBe(8); // [4,8,8,1] and [3,3,1,4]: 4 + 4 dims, as pydftracer counts
    expect(conv.args.cpu_memory).toBe(4 * 6 * 6 * 4 * 4);
    expect(conv.args.input_shapes).toBe('[[4,8,8,1],[3,3,1,4]]');
    expect(String(conv.args.call_site)).toMatch(/tfjs\.test-util\.ts:\d+/);
    const cpuShare = pp().reduce((s, e) => s + (e.args.total_cpu_percent as number), 0);
    expect(cpuShare).toBeGreaterThan(99);
    expect(cpuShare).toBeLessThan(101);
  });

  it('puts them on the tracer clock, inside the active steps and the enclosing event', () => {
    const cycle = cycles()[0]!;
    expect(cycle.cat).toBe('profiler');
    const byId = new Map(trace.map((e) => [e.id, e]));
    for (const e of pp()) {
      expect(e.ts).toBeGreaterThanOrEqual(activeWindow.start);
      expect(e.ts + e.dur).toBeLessThanOrEqual(activeWindow.end);
      expect(e.ts).toBeGreaterThanOrEqual(cycle.ts);
      expect(e.ts + e.dur).toBeLessThanOrEqual(cycle.ts + cycle.dur);
      expect(e.tid).toBe(cycle.tid);
      // Nested under the cycle through its step.
      const parent = byId.get(e.args.p_idx!)!;
      expect(parent.name).toBe(`ProfilerStep#${e.args.step}`);
      expect(parent.args.p_idx).toBe(cycle.id);
      expect(e.ts).toBeGreaterThanOrEqual(parent.ts);
      expect(e.ts + e.dur).toBeLessThanOrEqual(parent.ts + parent.dur);
    }
    expect(trace.filter((e) => e.name.startsWith('ProfilerStep#') && e.args.p_idx === cycle.id).map((e) => e.name)).toEqual(['ProfilerStep#2', 'ProfilerStep#3']);
  });

  it('lines PP events up with the I/O and function events of the same steps', () => {
    for (const step of [2, 3]) {
      const s = trace.find((e) => e.name === `ProfilerStep#${step}`)!;
      const w = stepWindows.get(step)!;
      const load = trace.filter((e) => e.name === 'loadItem' && e.ts >= w.start && e.ts + e.dur <= w.end);
      expect(load).toHaveLength(1);
      const reads = trace.filter((e) => e.cat === 'POSIX' && e.name === 'read' && e.ts >= w.start && e.ts <= w.end);
      expect(reads.length).toBeGreaterThanOrEqual(1);
      // The load ran before the step's first kernel, inside the step's span: one clock.
      const kernels = pp().filter((e) => e.args.step === step);
      expect(load[0]!.ts).toBeGreaterThanOrEqual(s.ts);
      expect(load[0]!.ts + load[0]!.dur).toBeLessThanOrEqual(Math.min(...kernels.map((k) => k.ts)));
    }
  });

  it('leaves no overlapping slices on any track', () => {
    expect(overlaps(trace)).toEqual([]);
    expect(trace.filter((e) => e.cat === 'POSIX').length).toBeGreaterThan(0);
  });
});
