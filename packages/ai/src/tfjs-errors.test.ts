import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { validateFiles } from '@dftracer/analyzer';
import { finalize, initializeLog } from '@dftracer/core';
import { readTrace, tempDir, traceProblems, type Trace, type TraceEvent, errorDifferences, remember, type Seen } from '@dftracer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ai, useTf } from './index.js';

// An exception tfjs throws inside a traced step reaches the caller as the very object tfjs threw;
// the step's event is written and the next step nests as if nothing had happened.

let file = '';
const checks: ((t: Trace) => void)[] = [];

beforeAll(async () => {
  await tf.setBackend('cpu');
  useTf(tf);
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

/** Steps `marker` (their `step` arg) are roots, each with one `forward` event inside. */
function expectSteps(t: Trace, step: number, count: number): TraceEvent[] {
  const steps = t.program.filter((e) => e.name === 'step' && e.args.step === step);
  expect(steps).toHaveLength(count);
  for (const s of steps) expect(s.args.p_idx).toBe(-1);
  return steps;
}

describe('an exception thrown by tfjs inside a traced step', () => {
  it('sync: a shape mismatch in tf.matMul reaches the caller unchanged; the step is written; the next step nests', () => {
    const seen: Seen = {};
    const forward = ai.compute.forward((a: tf.Tensor2D, b: tf.Tensor2D) => tf.matMul(a, b));
    const step = ai.compute.step({ step: 1 })((a: tf.Tensor2D, b: tf.Tensor2D) => {
      try {
        return forward(a, b);
      } catch (e) {
        remember(seen, e);
      }
    });
    let got: unknown;
    try {
      step(tf.ones([2, 3]), tf.ones([4, 5]));
    } catch (e) {
      got = e;
    }
    expectSameError(seen, got, /inner shapes|must match/i);
    const ok = step(tf.ones([2, 3]), tf.ones([3, 5])) as tf.Tensor;
    expect(ok.shape).toEqual([2, 5]);
    checks.push((t) => {
      const [failed, next] = expectSteps(t, 1, 2);
      // The forward that threw is written inside its step; the next step holds its own forward.
      for (const s of [failed!, next!]) expect(t.program.filter((e) => e.name === 'forward' && e.args.p_idx === s.id)).toHaveLength(1);
      const fwd = t.program.find((e) => e.name === 'forward' && e.args.p_idx === next!.id)!;
      expect(fwd.args.out_shape).toEqual([2, 5]);
    });
  });

  it('async: an op on a disposed tensor after an await rejects with the tfjs error; the step is written; the next step nests', async () => {
    const seen: Seen = {};
    const forward = ai.compute.forward((x: tf.Tensor) => x.add(1));
    const step = ai.compute.step({ step: 2 })(async (x: tf.Tensor) => {
      await new Promise((r) => setTimeout(r, 1));
      try {
        return forward(x);
      } catch (e) {
        remember(seen, e);
      }
    });
    const dead = tf.ones([3]);
    dead.dispose();
    let got: unknown;
    await step(dead).catch((e: unknown) => {
      got = e;
    });
    expectSameError(seen, got, /disposed/i);
    // tf.neg does not check disposal: the cpu kernel itself throws, through the traced call.
    const raw: Seen = {};
    const neg = ai.compute.step({ step: 2 })(async (x: tf.Tensor) => {
      try {
        return tf.neg(x);
      } catch (e) {
        remember(raw, e);
      }
    });
    let got2: unknown;
    await neg(dead).catch((e: unknown) => {
      got2 = e;
    });
    expectSameError(raw, got2, /reading 'backend'/);
    const out = (await step(tf.ones([3]))) as tf.Tensor;
    expect(Array.from(out.dataSync())).toEqual([2, 2, 2]);
    checks.push((t) => {
      const steps = expectSteps(t, 2, 3);
      expect(t.program.filter((e) => e.name === 'forward' && e.args.p_idx === steps[2]!.id)).toHaveLength(1);
    });
  });

  it('a region run (run()) that throws a tfjs error closes its span and rethrows the same error', async () => {
    const seen: Seen = {};
    let got: unknown;
    try {
      ai.compute.step.run(() => {
        try {
          return tf.matMul(tf.ones([2, 2]), tf.ones([3, 3]));
        } catch (e) {
          remember(seen, e);
        }
      }, { step: 3 });
    } catch (e) {
      got = e;
    }
    expectSameError(seen, got, /inner shapes|must match/i);
    await ai.compute.step.run(async () => tf.ones([1]), { step: 3 });
    checks.push((t) => expectSteps(t, 3, 2));
  });
});
