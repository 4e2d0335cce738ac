import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { profile } from './profiler.js';
import { schedule } from './schedule.js';
import { kernelsOf } from './tfjs.test-util.js';

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
});

describe('wasm backend', () => {
  it('records the kernels wasm runs, with results unchanged', async () => {
    const x = tf.randomNormal([2, 16, 16, 3], 0, 1, 'float32', 7);
    const w = tf.randomNormal([3, 3, 3, 8], 0, 1, 'float32', 8);
    const f = (): tf.Tensor => tf.tidy(() => tf.relu(tf.conv2d(x as tf.Tensor4D, w as tf.Tensor4D, 1, 'same')).mean([1, 2]));
    const plain = f();
    const expected = await kernelsOf(() => void f().dispose());
    const p = profile({ tf, schedule: schedule({ wait: 1, warmup: 0, active: 1, repeat: 1 }), recordShapes: true, profileMemory: true });
    p.start();
    f().dispose(); // wait step
    p.step();
    const traced = f();
    p.step();
    await p.stop();
    expect(Array.from(traced.dataSync())).toEqual(Array.from(plain.dataSync()));
    const kernels = p.events().filter((e) => e.kind === 'kernel');
    expect(kernels.map((e) => e.name).sort()).toEqual([...expected].sort());
    expect(kernels.every((e) => e.backend === 'wasm' && e.device === 0)).toBe(true);
    expect(kernels.find((e) => e.name === 'Conv2D')!.inputShapes).toEqual([[2, 16, 16, 3], [3, 3, 3, 8]]);
    tf.dispose([x, w, plain, traced]);
  });
});
