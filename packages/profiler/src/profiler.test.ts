import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfilerActivity } from './activity.js';
import type { ProfilerResult } from './result.js';
import { profile, Profiler } from './profiler.js';
import { recordFunction } from './record-function.js';
import { schedule } from './schedule.js';
import { resolveTf } from './tf-core.js';
import { clockUs, kernelsOf, smallCnn, tf } from './tfjs.test-util.js';

let cnn: Awaited<ReturnType<typeof smallCnn>>;

beforeAll(async () => {
  cnn = await smallCnn();
  cnn.trainStep(); // first-call set-up (weights, optimizer slots) out of the way
});

afterAll(() => cnn.dispose());

/** Runs n real training steps under p, noting each step's window on the tracer clock. */
function trainSteps(p: Profiler, n: number): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  p.start();
  for (let i = 0; i < n; i++) {
    const start = clockUs();
    cnn.trainStep();
    windows.push({ start, end: clockUs() });
    p.step();
  }
  return windows;
}

describe('profile with a schedule', () => {
  it('wait=1, warmup=1, active=2, repeat=1 over 6 steps: one cycle with exactly the 2 active steps', async () => {
    const ready: ProfilerResult[] = [];
    const expected = await kernelsOf(() => cnn.trainStep());
    const p = profile({ tf, activities: [ProfilerActivity.CPU], schedule: schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 }), onTraceReady: (r) => void ready.push(r) });
    const before = clockUs();
    const windows = trainSteps(p, 6);
    await p.stop();
    expect(ready).toHaveLength(1);
    const r = ready[0]!;
    expect(r.steps().map((s) => s.step)).toEqual([2, 3]);
    const events = r.events().filter((e) => e.kind === 'kernel');
    expect(new Set(events.map((e) => e.step))).toEqual(new Set([2, 3]));
    // Each active step recorded exactly the kernels tfjs ran for a training step (tf.profile lists
    // a kernel after the tape clones it made, so compare as multisets).
    for (const step of [2, 3]) {
      expect(events.filter((e) => e.step === step).map((e) => e.name).sort()).toEqual([...expected].sort());
    }
    expect(expected.length).toBeGreaterThan(50);
    // Inside the active steps' wall-clock window, each in its own step.
    const lo = windows[2]!.start;
    const hi = windows[3]!.end;
    for (const e of events) {
      expect(e.start).toBeGreaterThanOrEqual(lo);
      expect(e.start + e.duration).toBeLessThanOrEqual(hi);
      const w = windows[e.step]!;
      expect(e.start).toBeGreaterThanOrEqual(w.start);
      expect(e.start + e.duration).toBeLessThanOrEqual(w.end);
      expect(e.backend).toBe('cpu');
    }
    expect(r.start).toBeGreaterThanOrEqual(before);
    expect(r.start).toBeLessThanOrEqual(lo);
    expect(r.end).toBeGreaterThanOrEqual(hi);
    expect(r.cycle).toBe(0);
    expect(r.stepNum).toBe(4);
    expect(p.result).toBe(r);
  });

  it('repeat=2 hands over two cycles; the hook is installed only while warming up or recording', async () => {
    const ready: ProfilerResult[] = [];
    const hooked: number[] = [];
    const p = profile({ tf, schedule: schedule({ wait: 1, warmup: 1, active: 2, repeat: 2 }), onTraceReady: (r) => void ready.push(r) });
    p.start();
    for (let i = 0; i < 10; i++) {
      hooked.push(kernelHubStatus().listeners);
      cnn.trainStep();
      p.step();
    }
    await p.stop();
    expect(ready.map((r) => r.steps().map((s) => s.step))).toEqual([[2, 3], [6, 7]]);
    expect(ready.map((r) => r.cycle)).toEqual([0, 1]);
    for (const r of ready) expect(r.events().length).toBeGreaterThan(0);
    // Wait steps (0, 4) and the steps after the last cycle (8, 9) run with no listener at all.
    expect(hooked).toEqual([0, 1, 1, 1, 0, 1, 1, 1, 0, 0]);
    expect(kernelHubStatus().wrappedKernels).toBe(0);
  });

  it('honours skipFirst', async () => {
    const ready: ProfilerResult[] = [];
    const p = profile({ tf, schedule: schedule({ wait: 0, warmup: 1, active: 1, repeat: 1, skipFirst: 3 }), onTraceReady: (r) => void ready.push(r) });
    trainSteps(p, 7);
    await p.stop();
    expect(ready).toHaveLength(1);
    expect(ready[0]!.steps().map((s) => s.step)).toEqual([4]);
    expect(new Set(ready[0]!.events().filter((e) => e.kind === 'kernel').map((e) => e.step))).toEqual(new Set([4]));
  });

  it('without a schedule records every step and hands the cycle over at stop()', async () => {
    const ready: ProfilerResult[] = [];
    const p = profile({ tf, onTraceReady: (r) => void ready.push(r) });
    trainSteps(p, 3);
    expect(ready).toHaveLength(0);
    await p.stop();
    expect(ready).toHaveLength(1);
    expect(ready[0]!.steps().map((s) => s.step)).toEqual([0, 1, 2, 3]);
    await p.stop(); // idempotent
    expect(ready).toHaveLength(1);
  });

  it('a cycle cut short by stop() is handed over; warmup alone is not', async () => {
    const ready: ProfilerResult[] = [];
    const sched = schedule({ wait: 0, warmup: 1, active: 3 });
    const a = profile({ tf, schedule: sched, onTraceReady: (r) => void ready.push(r) });
    trainSteps(a, 2);
    await a.stop();
    expect(ready.map((r) => r.steps().map((s) => s.step))).toEqual([[1, 2]]);
    const b = profile({ tf, schedule: sched, onTraceReady: (r) => void ready.push(r) });
    b.start();
    cnn.trainStep();
    await b.stop();
    expect(ready).toHaveLength(1);
    expect(kernelHubStatus().listeners).toBe(0);
  });
});

describe('what an event holds', () => {
  it('recordShapes, profileMemory: input shapes, output bytes and engine totals', async () => {
    const p = profile({ tf, recordShapes: true, profileMemory: true });
    p.start();
    const x = tf.ones([2, 5, 5, 3]);
    const k = tf.ones([3, 3, 3, 4]);
    const y = tf.conv2d(x as tf.Tensor4D, k as tf.Tensor4D, 1, 'valid');
    const totals = tf.memory();
    await p.stop();
    tf.dispose([x, k, y]);
    const conv = p.events().find((e) => e.name === 'Conv2D')!;
    expect(conv.inputShapes).toEqual([[2, 5, 5, 3], [3, 3, 3, 4]]);
    expect(conv.inputDtypes).toEqual(['float32', 'float32']);
    expect(conv.bytesAdded).toBe(2 * 3 * 3 * 4 * 4);
    expect(conv.tensorsAdded).toBe(1);
    expect(conv.totalBytes).toBe(totals.numBytes);
    expect(conv.totalTensors).toBe(totals.numTensors);
  });

  it('without the flags keeps no shapes, bytes or stacks', async () => {
    const p = profile({ tf });
    p.start();
    cnn.trainStep();
    await p.stop();
    const e = p.events().find((ev) => ev.kind === 'kernel')!;
    expect(e.inputShapes).toEqual([]);
    expect(e.bytesAdded).toBe(0);
    expect(e.stack).toEqual([]);
  });

  it('withStack: the call site is the program line that ran the op', async () => {
    const p = profile({ tf, withStack: true });
    p.start();
    const a = tf.ones([3]);
    const b = tf.square(a); // the call site
    await p.stop();
    tf.dispose([a, b]);
    const sq = p.events().find((e) => e.name === 'Square')!;
    expect(sq.stack.length).toBeGreaterThan(0);
    expect(sq.stack[0]).toMatch(/profiler\.test\.ts:\d+:\d+/);
    expect(sq.stack.join('\n')).not.toMatch(/@tensorflow|kernel-hub|call-site/);
  });

  it('GPU-only activities record nothing from the cpu backend', async () => {
    const p = profile({ tf, activities: [ProfilerActivity.GPU] });
    p.start();
    cnn.trainStep();
    await p.stop();
    expect(p.events().filter((e) => e.kind === 'kernel')).toEqual([]);
    expect(ProfilerActivity.CUDA).toBe(ProfilerActivity.GPU); // torch's spelling
  });

  it('records GC pauses and the event loop of each step', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const p = profile({ tf });
    p.start();
    gc();
    await new Promise((r) => setTimeout(r, 200)); // Node reports GC after the loop turns
    p.step();
    await p.stop();
    const pauses = p.events().filter((e) => e.kind === 'gc');
    expect(pauses.map((e) => e.name)).toContain('gc.major');
    const steps = p.result!.steps();
    for (const g of pauses) expect(g.start).toBeGreaterThanOrEqual(steps[0]!.start);
    // Partly busy (the collection), partly idle (the timer): strictly between 0 and 1.
    expect(steps[0]!.eventLoopUtilization).toBeGreaterThan(0);
    expect(steps[0]!.eventLoopUtilization).toBeLessThan(1);
    expect(steps[0]!.eventLoopDelayMaxUs).toBeGreaterThanOrEqual(0);
  });
});

describe('recordFunction', () => {
  it('records named regions with their kernels nested inside, only while a cycle records', async () => {
    recordFunction('before', () => cnn.trainStep()); // no profiler: nothing recorded, fn still runs
    const p = profile({ tf });
    p.start();
    const a = tf.ones([8, 8]);
    const out = recordFunction('forward', () => tf.matMul(a, a));
    {
      using _loss = recordFunction('loss');
      tf.dispose(tf.sum(out));
    }
    await recordFunction('async region', async () => {
      await Promise.resolve();
      tf.dispose(tf.relu(a));
    });
    await p.stop();
    tf.dispose([a, out]);
    const ev = p.events();
    expect(ev.filter((e) => e.kind === 'user_annotation').map((e) => e.name)).toEqual(['forward', 'loss', 'async region']);
    const inside = (region: string, kernel: string): boolean => {
      const r = ev.find((e) => e.name === region)!;
      const k = ev.find((e) => e.name === kernel)!;
      return k.start >= r.start && k.start + k.duration <= r.start + r.duration;
    };
    expect(inside('forward', 'BatchMatMul')).toBe(true);
    expect(inside('loss', 'Sum')).toBe(true);
    expect(inside('async region', 'Relu')).toBe(true);
    const fwd = p.keyAverages().find((r) => r.key === 'forward')!;
    const mm = p.keyAverages().find((r) => r.key === 'BatchMatMul')!;
    expect(fwd.selfCpuTimeTotal).toBe(fwd.cpuTimeTotal - mm.cpuTimeTotal);
    expect(() => recordFunction('')).toThrow(/name must be a non-empty string/);
  });
});

describe('ways to run it', () => {
  it('profile(options, fn) starts, runs, stops and returns fn’s result, also when fn throws', async () => {
    const ready: ProfilerResult[] = [];
    const out = await profile({ tf, onTraceReady: (r) => void ready.push(r) }, async (p) => {
      cnn.trainStep();
      p.step();
      await Promise.resolve();
      cnn.trainStep();
      return 42;
    });
    expect(out).toBe(42);
    expect(ready).toHaveLength(1);
    await expect(profile({ tf }, () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(kernelHubStatus().listeners).toBe(0);
  });

  it('await using stops at the end of the block and waits for an async onTraceReady', async () => {
    let done = false;
    {
      await using p = profile({
        tf,
        onTraceReady: async () => {
          await new Promise((r) => setTimeout(r, 5));
          done = true;
        },
      }).start();
      cnn.trainStep();
      expect(p.stepNum).toBe(0);
    }
    expect(done).toBe(true);
  });

  it('finds tfjs by itself: the same engine as the program’s', () => {
    expect((resolveTf(undefined) as typeof tf).engine()).toBe(tf.engine());
  });

  it('names bad arguments', () => {
    expect(() => profile({ activities: ['TPU' as ProfilerActivity] })).toThrow(/activities has "TPU"/);
    expect(() => profile({ schedule: 3 as never })).toThrow(/schedule must be a function/);
    expect(() => profile({ recordShapes: 'yes' as never })).toThrow(/recordShapes must be a boolean/);
    expect(() => profile({ tf: {} }).start()).toThrow(/tf must be the tfjs module/);
    // An engine but no kernel registry: refused by the hook, and the profiler stays unstarted.
    const half = profile({ tf: { engine: tf.engine } });
    expect(() => half.start()).toThrow(/lacks getKernelsForBackend/);
    expect(() => half.step()).toThrow(/start\(\) first/);
    expect(() => profile({ tf }).step()).toThrow(/start\(\) first/);
    expect(() => profile({ tf }).keyAverages()).toThrow(/no cycle recorded yet/);
  });
});
