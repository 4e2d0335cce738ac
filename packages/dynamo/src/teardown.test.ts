import * as tf from '@tensorflow/tfjs';
import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { compile, createBackend } from './index.js';
import { simpleModel } from './models.test-util.js';
import { startTrace } from './trace.test-util.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('teardown', () => {
  it('after finalize the model runs with no events, the original kernels and layers back in place', () => {
    const originals = new Map(tf.getKernelsForBackend('cpu').map((k) => [k.kernelName, k]));
    const stop = startTrace('teardown');
    const backend = createBackend({ name: 'td' });
    const model = simpleModel();
    const m = compile(model, { backend });
    const x = tf.randomNormal([1, 32, 32, 3], 0, 1, 'float32', 3);
    const before = (m.predict(x) as tf.Tensor).dataSync().slice();
    // While tracing: kernels are wrapped once, layers have a traced call of their own.
    expect(tf.getKernel('FusedConv2D', 'cpu')).not.toBe(originals.get('FusedConv2D'));
    expect(kernelHubStatus().listeners).toBe(1);
    expect(model.layers.every((l) => Object.prototype.hasOwnProperty.call(l, 'call'))).toBe(true);

    const events = stop();
    expect(events.filter((e) => e.cat === 'dynamo').length).toBeGreaterThan(10);
    expect(events.find((e) => e.name === 'end')!.args.plugins).toContain('dynamo');

    const restored = () => {
      expect(kernelHubStatus()).toEqual({ listeners: 0, wrappedKernels: 0 });
      const now = tf.getKernelsForBackend('cpu');
      expect(now.length).toBe(originals.size);
      for (const k of now) expect(k).toBe(originals.get(k.kernelName));
      expect(model.layers.some((l) => Object.prototype.hasOwnProperty.call(l, 'call'))).toBe(false);
    };
    restored();

    // The compiled model still works, untraced: same results, nothing hooked, the file unchanged.
    const text = readFileSync(stop.file, 'utf8');
    expect(Array.from((m.predict(x) as tf.Tensor).dataSync())).toEqual(Array.from(before));
    restored();
    // A new input shape is still captured as a graph, hooking kernels for that call only.
    m.predict(tf.zeros([2, 32, 32, 3]));
    expect(backend.graphs.map((g) => g.signature)).toEqual(['float32[1,32,32,3]', 'float32[2,32,32,3]']);
    restored();
    expect(readFileSync(stop.file, 'utf8')).toBe(text);
  });

  it('leaves the tfjs engine object as it found it while hooked and after (V8 keeps it a fast object)', () => {
    // Adding own properties to the engine and deleting them again would turn it into a
    // dictionary-mode object, and every kernel of the process would run slower after finalize.
    const engine = tf.engine();
    const own = Object.getOwnPropertyNames(engine);
    const stop = startTrace('engine-shape');
    const m = compile(simpleModel(), { backend: createBackend({ name: 'shape' }) });
    // A read inside the compiled call: the graph break the read hooks exist for still happens.
    const reads = createBackend({ name: 'reads' });
    const f = compile((x: tf.Tensor) => (tf.sum(x).dataSync()[0]! > 0 ? tf.relu(x) : tf.neg(x)), { backend: reads });
    (m.predict(tf.randomNormal([1, 32, 32, 3], 0, 1, 'float32', 4)) as tf.Tensor).dispose();
    f(tf.ones([2])).dispose();
    expect(reads.graphs.map((g) => g.partition)).toEqual([0, 1]);
    expect(Object.getOwnPropertyNames(engine)).toEqual(own);
    stop();
    expect(Object.getOwnPropertyNames(engine)).toEqual(own);
    expect(Object.prototype.hasOwnProperty.call(engine, 'readSync')).toBe(false);
  });

  it('leaves kernels outside compiled calls unwatched once a compiled train step and its backward pass are done', () => {
    const stop = startTrace('unwatched');
    const model = simpleModel();
    const m = compile(model, { backend: createBackend({ name: 'uw' }) });
    const x = tf.randomNormal([2, 32, 32, 3], 0, 1, 'float32', 5);
    const labels = tf.oneHot(tf.tensor1d([1, 3], 'int32'), 10);
    const opt = tf.train.sgd(0.01);
    const step = () => opt.minimize(() => tf.losses.softmaxCrossEntropy(labels, m.apply(x, { training: true }) as tf.Tensor), true)!.dispose();
    step();
    step();
    // The optimizer's update ran after the backward pass: from there on, plain tfjs work is not timed.
    const now = vi.spyOn(performance, 'now');
    tf.tidy(() => tf.relu(tf.matMul(tf.ones([4, 4]), tf.ones([4, 4]))));
    expect(now).not.toHaveBeenCalled();
    now.mockRestore();
    const events = stop();
    // Both steps are whole: forward kernels in the call, backward kernels after it, the same each step.
    const calls = events.filter((e) => e.name === 'uw.SimpleModel.apply');
    expect(calls).toHaveLength(2);
    const backward = events.filter((e) => e.cat === 'dynamo' && e.name.startsWith('function.') && e.args.grad_enabled === 1 && !calls.some((c) => e.ts >= c.ts && e.ts + e.dur <= c.ts + c.dur));
    expect(backward.length).toBeGreaterThan(5);
    expect(backward.length % 2).toBe(0);
    expect(events.filter((e) => e.name === 'function.Relu' || e.name === 'function.BatchMatMul').filter((e) => !calls.some((c) => e.ts >= c.ts && e.ts + e.dur <= c.ts + c.dur) && e.args.grad_enabled === 0)).toEqual([]);
  });
});
