import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerWasmConvGrad, WASM_TRAINING_KERNELS } from './conv-grad.js';

type Conv = (x: tf.Tensor4D, w: tf.Tensor4D, stride: number, pad: 'valid' | 'same') => tf.Tensor4D;
const conv2d: Conv = (x, w, stride, pad) => tf.conv2d(x, w, stride, pad);
const depthwise: Conv = (x, w, stride, pad) => tf.depthwiseConv2d(x, w, stride, pad);

/** The gradients (input, filter) of sum(conv(x, w)²) on a backend. */
async function grads(backend: string, conv: Conv, x: tf.Tensor4D, w: tf.Tensor4D, stride: number, pad: 'valid' | 'same') {
  await tf.setBackend(backend);
  return tf.tidy(() => tf.grads((a: tf.Tensor, f: tf.Tensor) => conv(a as tf.Tensor4D, f as tf.Tensor4D, stride, pad).square().sum())([x, w]).map((g) => g.arraySync()));
}

type Shape4 = readonly [number, number, number, number];

/** Both gradients on wasm equal the cpu backend's within 1e-5 of their scale. */
async function expectSameAsCpu(conv: Conv, xs: Shape4, fs: Shape4, stride: number, pad: 'valid' | 'same') {
  await tf.setBackend('cpu');
  const x = tf.randomNormal([...xs], 0, 1, 'float32', 1) as tf.Tensor4D;
  const w = tf.randomNormal([...fs], 0, 1, 'float32', 2) as tf.Tensor4D;
  const want = (await grads('cpu', conv, x, w, stride, pad)).map((g) => tf.tensor(g));
  const got = (await grads('wasm', conv, x, w, stride, pad)).map((g) => tf.tensor(g));
  await tf.setBackend('cpu');
  expect(got.map((g) => g.shape)).toEqual([[...xs], [...fs]]);
  for (let i = 0; i < 2; i++) {
    const scale = want[i]!.abs().max().arraySync() as number;
    expect(scale).toBeGreaterThan(0);
    expect(got[i]!.sub(want[i]!).abs().max().arraySync() as number).toBeLessThan(scale * 1e-5);
  }
  tf.dispose([x, w, ...want, ...got]);
}

describe('registerWasmConvGrad', () => {
  beforeAll(async () => {
    registerWasmConvGrad(tf);
    await tf.setBackend('cpu');
  });

  it('adds the kernels wasm lacks once, and rejects what is not tfjs', () => {
    for (const k of WASM_TRAINING_KERNELS) expect(tf.getKernel(k, 'wasm')).toBeDefined();
    expect(registerWasmConvGrad(tf)).toEqual([]);
    expect(() => registerWasmConvGrad({} as never)).toThrow(/tf must be the @tensorflow\/tfjs namespace/);
  });

  it.each([
    [[4, 28, 28, 1], [3, 3, 1, 8], 1, 'valid'],
    [[2, 13, 13, 8], [3, 3, 8, 16], 1, 'same'],
    [[3, 9, 10, 2], [3, 2, 2, 4], 2, 'same'],
    [[3, 9, 10, 2], [3, 3, 2, 4], 2, 'valid'],
  ] as const)('conv2d: matches the cpu backend for x %j, filter %j, stride %i, %s padding', async (xs, fs, stride, pad) => {
    await expectSameAsCpu(conv2d, xs, fs, stride, pad);
  });

  it.each([
    [[2, 9, 9, 3], [3, 3, 3, 1], 1, 'same'],
    [[3, 9, 10, 4], [3, 2, 4, 2], 2, 'same'],
    [[2, 11, 8, 2], [3, 3, 2, 3], 2, 'valid'],
    [[1, 6, 6, 1], [2, 2, 1, 1], 1, 'valid'],
  ] as const)('depthwise: matches the cpu backend for x %j, filter %j, stride %i, %s padding', async (xs, fs, stride, pad) => {
    await expectSameAsCpu(depthwise, xs, fs, stride, pad);
  });

  it('lets a conv net (conv2d, depthwise) train on wasm without leaking tensors', async () => {
    await tf.setBackend('wasm');
    const model = tf.sequential({
      layers: [
        tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 2, kernelSize: 3, strides: 2, padding: 'same' }),
        tf.layers.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2, padding: 'same' }),
        tf.layers.flatten(),
        tf.layers.dense({ units: 1 }),
      ],
    });
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
