import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerWasmConvGrad } from './wasm-conv-grad.js';

/** The filter gradient of sum(conv2d(x, w)²) on a backend. */
async function filterGrad(backend: string, x: tf.Tensor4D, w: tf.Tensor4D, stride: number, pad: 'valid' | 'same') {
  await tf.setBackend(backend);
  return tf.tidy(() => tf.grad((f: tf.Tensor) => tf.conv2d(x, f as tf.Tensor4D, stride, pad).square().sum())(w).arraySync());
}

describe('registerWasmConvGrad', () => {
  beforeAll(async () => {
    registerWasmConvGrad();
    await tf.setBackend('cpu');
  });

  it.each([
    [[4, 28, 28, 1], [3, 3, 1, 8], 1, 'valid'],
    [[2, 13, 13, 8], [3, 3, 8, 16], 1, 'same'],
    [[3, 9, 10, 2], [3, 2, 2, 4], 2, 'same'],
    [[3, 9, 10, 2], [3, 3, 2, 4], 2, 'valid'],
  ] as const)('matches the cpu backend for x %j, filter %j, stride %i, %s padding', async (xs, fs, stride, pad) => {
    await tf.setBackend('cpu');
    const x = tf.randomNormal([...xs], 0, 1, 'float32', 1) as tf.Tensor4D;
    const w = tf.randomNormal([...fs], 0, 1, 'float32', 2) as tf.Tensor4D;
    const want = tf.tensor(await filterGrad('cpu', x, w, stride, pad));
    const got = tf.tensor(await filterGrad('wasm', x, w, stride, pad));
    await tf.setBackend('cpu');
    expect(got.shape).toEqual([...fs]);
    const scale = want.abs().max().arraySync() as number;
    expect(got.sub(want).abs().max().arraySync() as number).toBeLessThan(scale * 1e-5);
  });

  it('lets a conv net train on wasm without leaking tensors', async () => {
    await tf.setBackend('wasm');
    const model = tf.sequential({ layers: [tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 2, kernelSize: 3, strides: 2, padding: 'same' }), tf.layers.flatten(), tf.layers.dense({ units: 1 })] });
    const opt = tf.train.sgd(0.01);
    const x = tf.randomNormal([4, 8, 8, 1], 0, 1, 'float32', 3);
    const y = tf.zeros([4, 1]);
    const loss = () => tf.losses.meanSquaredError(y, model.apply(x) as tf.Tensor) as tf.Scalar;
    const first = (opt.minimize(loss, true) as tf.Scalar).arraySync();
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) tf.dispose(opt.minimize(loss, true) ?? []);
    expect(tf.memory().numTensors).toBe(before);
    expect(tf.tidy(() => loss().arraySync())).toBeLessThan(first);
  });
});
