import * as tf from '@tensorflow/tfjs';
import { validateFiles } from '@dftracer/analyzer';
import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { readTrace, traceProblems, type TraceEvent, errorDifferences, remember, type Seen, caught } from '@dftracer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createBackend } from './index.js';
import { simpleModel } from './models.test-util.js';
import { startTrace } from './trace.test-util.js';

// An exception tfjs throws inside a compiled call reaches the caller as the very object tfjs threw,
// and leaves the trace, the kernel hub and the compiled-call stack as they were.

let stop: ReturnType<typeof startTrace>;
const checks: ((events: TraceEvent[]) => void)[] = [];

beforeAll(async () => {
  await tf.setBackend('cpu');
  stop = startTrace('tfjs-errors');
});

afterAll(async () => {
  const events = stop();
  for (const c of checks) c(events);
  expect(traceProblems(readTrace(stop.file))).toEqual([]);
  const report = await validateFiles([stop.file], { threads: 0 });
  expect(report.files.flatMap((f) => f.problems.map((p) => `${p.kind}: ${p.examples[0]?.message ?? ''}`))).toEqual([]);
});

function expectSameError(seen: Seen, got: unknown, pattern: RegExp): void {
  expect(errorDifferences(seen, got, pattern)).toEqual([]);
}

/** The following call traces normally: its span is a root, its kernels nested in it. */
function expectTracesNormally(events: TraceEvent[], name: string): void {
  const call = events.filter((e) => e.name === name).at(-1);
  expect(call, name).toBeDefined();
  expect(call!.args.p_idx).toBe(-1);
  expect(call!.args.level).toBe(1);
  const kernels = events.filter((e) => e.args?.p_idx === call!.id && e.name.startsWith('function.'));
  expect(kernels.length).toBeGreaterThan(0);
}

describe('an exception thrown by tfjs inside a compiled call', () => {
  it('a shape mismatch in tf.matMul reaches the caller unchanged; the call span is written and the next call traces', () => {
    const backend = createBackend({ name: 'bad' });
    const seen: Seen = {};
    const mm = compile(
      function matmul(a: tf.Tensor2D, b: tf.Tensor2D) {
        const c = tf.relu(a); // one kernel runs before the failure
        try {
          return tf.matMul(c, b);
        } catch (e) {
          remember(seen, e);
        }
      },
      { backend },
    );
    const a = tf.ones([2, 3]) as tf.Tensor2D;
    const got = caught(() => mm(a, tf.ones([4, 5]) as tf.Tensor2D));
    expectSameError(seen, got, /matMul|inner shapes|must match/i);
    expect(kernelHubStatus().listeners).toBe(1);
    const ok = compile(function after(x: tf.Tensor2D) {
      return tf.matMul(x, tf.ones([3, 2]));
    }, { backend });
    expect(Array.from(ok(a).dataSync())).toEqual([3, 3, 3, 3]);
    checks.push((events) => {
      const failed = events.filter((e) => e.name === 'bad.matmul');
      expect(failed).toHaveLength(1);
      expect(failed[0]!.args.p_idx).toBe(-1);
      expect(events.some((e) => e.name === 'function.Relu' && e.args.p_idx === failed[0]!.id)).toBe(true);
      expectTracesNormally(events, 'bad.after');
    });
  });

  it('an op on a disposed tensor reaches the caller unchanged, also from a nested compiled call', () => {
    const backend = createBackend({ name: 'disposed' });
    const seen: Seen = {};
    const inner = compile(function innerFn(x: tf.Tensor) {
      try {
        return x.add(1); // the chained op checks first: 'Tensor is disposed'
      } catch (e) {
        remember(seen, e);
      }
    }, { backend });
    const outer = compile(function outerFn(x: tf.Tensor) {
      return inner(tf.neg(x));
    }, { backend });
    const x = tf.ones([3]);
    x.dispose();
    const got = caught(() => outer(x));
    // tf.neg does not check: the cpu kernel itself fails on the freed data (inside the kernel hub's wrapper).
    expect(got).toBeInstanceOf(TypeError);
    expect((got as Error).message).toMatch(/reading 'backend'/);
    expect((got as Error).stack).toMatch(/kernelFunc/);
    const y = tf.ones([3]);
    const gone = tf.neg(y);
    gone.dispose();
    const got2 = caught(() => inner(gone));
    expectSameError(seen, got2, /disposed/i);
    expect(Array.from((outer(y) as tf.Tensor).dataSync())).toEqual([0, 0, 0]);
    checks.push((events) => {
      const outers = events.filter((e) => e.name === 'disposed.outerFn');
      expect(outers).toHaveLength(2);
      // The successful outer call nests its inner call: the frame stack was left clean.
      const last = outers[1]!;
      const inners = events.filter((e) => e.name === 'disposed.innerFn' && e.args.p_idx === last.id);
      expect(inners).toHaveLength(1);
      expect(events.filter((e) => e.name === 'disposed.innerFn' && e.args.p_idx === -1)).toHaveLength(1);
      expectTracesNormally(events, 'disposed.outerFn');
    });
  });

  it('a LayersModel whose layer throws: the layer and call spans are closed, the next predict traces its layers', () => {
    const backend = createBackend({ name: 'model' });
    const model = simpleModel();
    const m = compile(model, { backend });
    const seen: Seen = {};
    const x = tf.ones([1, 32, 32, 3]);
    const dead = tf.ones([1, 32, 32, 3]);
    dead.dispose();
    const got = caught(() => {
      try {
        m.apply(dead);
      } catch (e) {
        remember(seen, e);
      }
    });
    expect(got).toBe(seen.thrown);
    expect((got as Error).message).toMatch(/disposed|reading 'backend'/);
    expect((got as Error).stack).toBe(seen.stack);
    const y = m.predict(x) as tf.Tensor;
    expect(y.shape).toEqual([1, 10]);
    expect(Array.from(y.dataSync())).toEqual(Array.from((model.predict(x) as tf.Tensor).dataSync()));
    checks.push((events) => {
      const applies = events.filter((e) => e.name === 'model.SimpleModel.apply');
      expect(applies).toHaveLength(1);
      // The layer that threw is closed inside the call that threw.
      expect(events.filter((e) => e.name === 'module.Conv2D' && e.args.p_idx === applies[0]!.id)).toHaveLength(1);
      const predict = events.find((e) => e.name === 'model.SimpleModel.predict')!;
      expect(predict.args.p_idx).toBe(-1);
      const layers = events.filter((e) => e.name.startsWith('module.') && e.args.p_idx === predict.id);
      expect(layers.map((e) => e.args.target)).toEqual(['conv', 'relu', 'pool', 'flatten', 'fc']);
    });
  });
});
