import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createBackend } from './index.js';
import { profiledKernels, simpleModel } from './models.test-util.js';
import { ancestry, type TraceEvent } from '@dftracer/testing';
import { startTrace } from './trace.test-util.js';

let stop: () => TraceEvent[];

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  stop = startTrace('wasm');
});

afterAll(() => stop());

describe('wasm backend', () => {
  it('traces the same kernels tfjs runs on wasm, with results unchanged', async () => {
    const backend = createBackend({ name: 'simplewasm' });
    const model = simpleModel();
    const m = compile(model, { backend });
    const x = tf.randomNormal([1, 32, 32, 3], 0, 1, 'float32', 5);
    const plain = (model.predict(x) as tf.Tensor).dataSync().slice();
    const expected = await profiledKernels(() => m.predict(x) as tf.Tensor);
    expect(Array.from((m.predict(x) as tf.Tensor).dataSync())).toEqual(Array.from(plain));
    expect(expected).toContain('FusedConv2D');
    const events = stop();
    const calls = events.filter((e) => e.name === 'simplewasm.SimpleModel.predict');
    expect(calls).toHaveLength(2);
    const kernels = events.filter((e) => e.name.startsWith('function.') && ancestry(events, e).includes(calls[0]!.name) && e.ts <= calls[0]!.ts + calls[0]!.dur);
    expect(kernels.map((e) => e.name.slice('function.'.length))).toEqual(expected);
    expect(backend.graphs[0]!.estimateFlops().byTarget.FusedConv2D).toBe(30 * 30 * 16 * 2 * 27 + 30 * 30 * 16);
  });
});
