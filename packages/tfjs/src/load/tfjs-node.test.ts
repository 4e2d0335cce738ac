// loadTf's libtensorflow candidates: @tensorflow/tfjs-node (CPU) and @tensorflow/tfjs-node-gpu (CUDA). Their
// install downloads libtensorflow; where that could not happen, or there is no GPU, these tests
// say so in their titles and skip.
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import type { Tensor } from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTf, type LoadedTf } from '../index.js';
import { isAsyncBackend } from '../internal.js';
import { readTrace, tempDir } from '@dftracer/testing';

const file = initializeLog({ enable: true, logFile: join(tempDir(), 'node'), compression: false, disableIo: true }).file!;

/** loadTf with one candidate: what it got, or why not. */
async function probe(choice: 'tfjs-node' | 'tfjs-node-gpu'): Promise<{ got?: LoadedTf; why: string }> {
  try {
    return { got: await loadTf({ prefer: [choice] }), why: '' };
  } catch (e) {
    return { why: (e as Error).message.replace(/^loadTf: no TensorFlow.js could be loaded \(/, '').replace(/\); install .*$/, '') };
  }
}

// tfjs-node-gpu first: once tfjs-node's 'tensorflow' backend is loaded the GPU build cannot be.
const gpu = await probe('tfjs-node-gpu');
const cpu = gpu.got !== undefined ? { why: 'tfjs-node-gpu is loaded in this process' } : await probe('tfjs-node');

afterAll(() => finalize());

/** A conv layer forward on the loaded tfjs: the backend runs real kernels. */
async function convForward(loaded: LoadedTf) {
  const { tf } = loaded;
  const conv = tf.layers.conv2d({ filters: 8, kernelSize: 3, inputShape: [32, 32, 3] });
  const x = tf.randomNormal([4, 32, 32, 3]);
  const y = conv.apply(x) as Tensor;
  expect(y.shape).toEqual([4, 30, 30, 8]);
  expect((await y.data()).every(Number.isFinite)).toBe(true);
  tf.dispose([x, y]);
}

describe('tfjs-node and tfjs-node-gpu', () => {
  it.skipIf(cpu.got === undefined)(`tfjs-node: libtensorflow on the CPU${cpu.got === undefined ? ` (skipped: ${cpu.why})` : ''}`, async () => {
    const loaded = cpu.got!;
    expect([loaded.package, loaded.backend, loaded.device]).toEqual(['@tensorflow/tfjs-node', 'tensorflow', 'cpu']);
    expect(isAsyncBackend(loaded.tf)).toBe(false);
    await convForward(loaded);
  });

  it.skipIf(gpu.got === undefined)(`tfjs-node-gpu: CUDA, an asynchronous backend${gpu.got === undefined ? ` (skipped: ${gpu.why})` : ''}`, async () => {
    const loaded = gpu.got!;
    expect([loaded.package, loaded.backend, loaded.device]).toEqual(['@tensorflow/tfjs-node-gpu', 'tensorflow', 'cuda']);
    expect(isAsyncBackend(loaded.tf)).toBe(true);
    await convForward(loaded);
  });

  it('reports the loaded backend in a CM record, or what was passed over and why', () => {
    const reasons = [gpu, cpu].filter((p) => p.got === undefined).map((p) => p.why);
    for (const r of reasons) expect(r.length).toBeGreaterThan(0);
    finalize();
    const t = readTrace(file);
    const cm = t.meta.filter((m) => m.name === 'CM' && m.args.name === 'tfjs').map((m) => JSON.parse(m.args.value));
    const loaded = [gpu.got, cpu.got].filter((g) => g !== undefined);
    expect(cm.map((c) => c.package)).toEqual(loaded.map((g) => g!.package));
  });
});
