import { join } from 'node:path';
import { validateFiles } from '@dftracer/analyzer';
import { finalize, initializeLog } from '@dftracer/core';
import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { readTrace, tempDir, traceProblems, type Trace, errorDifferences, remember, type Seen } from '@dftracer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfilerActivity } from './activity.js';
import { profile, type Profiler } from './profiler.js';
import type { ProfilerResult } from './result.js';
import { schedule } from './schedule.js';
import { traceHandler } from './trace-handler.js';
import { tf } from './tfjs.test-util.js';

// An exception tfjs throws inside a profiled step reaches the caller as the very object tfjs threw;
// the profiler goes on stepping (or stops, for profile(opts, fn)) and the trace stays valid.

let file = '';
const checks: ((t: Trace) => void)[] = [];

beforeAll(async () => {
  await tf.setBackend('cpu');
  file = initializeLog({ enable: true, logFile: join(tempDir(), 'errors'), compression: false, disableIo: true }).file!;
});

afterAll(async () => {
  finalize();
  const t = readTrace(file);
  for (const c of checks) c(t);
  expect(traceProblems(t)).toEqual([]);
  const report = await validateFiles([file], { threads: 0 });
  expect(report.files.flatMap((f) => f.problems.map((p) => `${p.kind}: ${p.examples[0]?.message ?? ''}`))).toEqual([]);
});

function expectSameError(seen: Seen, got: unknown, pattern: RegExp): void {
  expect(errorDifferences(seen, got, pattern)).toEqual([]);
}

/** One profiled step: a good matmul, then (when `bad`) one tfjs refuses. */
function work(seen: Seen, bad: boolean): void {
  tf.tidy(() => {
    tf.matMul(tf.ones([4, 4]), tf.ones([4, 4]));
    if (!bad) return;
    try {
      tf.matMul(tf.ones([2, 3]), tf.ones([4, 5]));
    } catch (e) {
      remember(seen, e);
    }
  });
}

describe('an exception thrown by tfjs inside a profiled step', () => {
  it('step() in a finally: the error is the tfjs one, the cycle holds every step, the next cycle records', async () => {
    const ready: ProfilerResult[] = [];
    const p = profile({ tf, activities: [ProfilerActivity.CPU], schedule: schedule({ wait: 0, warmup: 0, active: 3, repeat: 2 }), onTraceReady: (r) => {
      ready.push(r);
      traceHandler(r);
    } });
    p.start();
    const errors: unknown[] = [];
    const seen: Seen[] = [];
    for (let i = 0; i < 6; i++) {
      const s: Seen = {};
      seen.push(s);
      try {
        work(s, i === 1);
      } catch (e) {
        errors.push(e);
      } finally {
        p.step();
      }
    }
    await p.stop();
    expect(errors).toHaveLength(1);
    expectSameError(seen[1]!, errors[0], /inner shapes|must match/i);
    expect(ready.map((r) => r.steps().map((s) => s.step))).toEqual([[0, 1, 2], [3, 4, 5]]);
    // The failed step recorded the kernels that ran before the error.
    const inStep1 = ready[0]!.events().filter((e) => e.step === 1 && e.kind === 'kernel').map((e) => e.name);
    expect(inStep1).toContain('BatchMatMul');
    expect(ready[1]!.events().filter((e) => e.name === 'BatchMatMul')).toHaveLength(3);
    expect(kernelHubStatus().listeners).toBe(0);
    checks.push((t) => {
      const steps = t.program.filter((e) => e.name.startsWith('ProfilerStep#'));
      expect(steps.slice(0, 6).map((e) => e.name)).toEqual(['ProfilerStep#0', 'ProfilerStep#1', 'ProfilerStep#2', 'ProfilerStep#3', 'ProfilerStep#4', 'ProfilerStep#5']);
    });
  });

  it('profile(opts, fn) whose fn throws a tfjs error: rejects with that very error, stops the profiler, hands the cycle over', async () => {
    const seen: Seen = {};
    const ready: ProfilerResult[] = [];
    let profiler: Profiler | undefined;
    let got: unknown;
    await profile({ tf, activities: [ProfilerActivity.CPU], onTraceReady: (r) => {
      ready.push(r);
      traceHandler(r);
    } }, async (p) => {
      profiler = p;
      work({}, false);
      p.step();
      await new Promise((r) => setTimeout(r, 1));
      work(seen, true);
    }).catch((e: unknown) => {
      got = e;
    });
    expectSameError(seen, got, /inner shapes|must match/i);
    expect(ready).toHaveLength(1);
    expect(ready[0]!.steps().map((s) => s.step)).toEqual([0, 1]);
    expect(kernelHubStatus().listeners).toBe(0);
    expect(() => profiler!.step()).toThrow(/call start\(\) first/);
    // A new profiler after the failure records normally.
    const again: ProfilerResult[] = [];
    await profile({ tf, activities: [ProfilerActivity.CPU], onTraceReady: (r) => void again.push(r) }, () => work({}, false));
    expect(again[0]!.events().filter((e) => e.name === 'BatchMatMul')).toHaveLength(1);
    checks.push((t) => expect(t.program.filter((e) => e.name === 'profiler.cycle')).toHaveLength(3));
  });

  it('profile(opts, fn) whose fn throws synchronously: the same error, no listener left', async () => {
    const seen: Seen = {};
    let got: unknown;
    await profile({ tf }, () => work(seen, true)).catch((e: unknown) => {
      got = e;
    });
    expectSameError(seen, got, /inner shapes|must match/i);
    expect(kernelHubStatus().listeners).toBe(0);
  });
});
