import * as tf from '@tensorflow/tfjs';
import { nowUs } from '@dftracer/core';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { kernelHubStatus, subscribeKernels, syncKernels, type KernelCall } from './kernel-hub.js';

interface Seen {
  kernelName: string;
  backendName: string;
  inputs: [string, number[], string][];
  outputs: [number[], string][];
  start: number;
  end: number;
  gradDepth: number;
  kernelDepth: number;
  backward: boolean;
}

// The call object is reused: copy what the test keeps.
const copy = (c: KernelCall): Seen => ({
  kernelName: c.kernelName,
  backendName: c.backendName,
  inputs: Object.entries(c.inputs).map(([k, t]) => [k, [...t.shape], t.dtype]),
  outputs: c.outputs.map((t) => [[...t.shape], t.dtype]),
  start: c.start,
  end: c.end,
  gradDepth: c.gradDepth,
  kernelDepth: c.kernelDepth,
  backward: c.backward,
});

/** Kernel names as tfjs's own profiler saw them, without customGrad scopes (not kernels). */
async function profiledKernels(f: () => tf.Tensor): Promise<string[]> {
  const p = await tf.profile(() => {
    const y = f();
    y.dataSync();
    return y;
  });
  (p.result as tf.Tensor).dispose();
  return p.kernels.map((k) => k.name).filter((n) => tf.getKernel(n, tf.getBackend()) !== undefined);
}

const model = () =>
  tf.tidy(() => {
    const x = tf.randomNormal([2, 8, 8, 3], 0, 1, 'float32', 1) as tf.Tensor4D;
    const w = tf.randomNormal([3, 3, 3, 4], 0, 1, 'float32', 2) as tf.Tensor4D;
    const y = tf.relu(tf.conv2d(x, w, 1, 'valid'));
    return tf.matMul(tf.reshape(y, [2, -1]), tf.ones([144, 5]));
  });

beforeAll(async () => {
  await tf.setBackend('cpu');
  await tf.ready();
});

let unsubs: (() => void)[] = [];
afterEach(() => {
  for (const u of unsubs.splice(0)) u();
});

describe('kernel hub', () => {
  it('sees exactly the kernels tfjs runs, with shapes, dtypes and times on the core clock', async () => {
    const seen: Seen[] = [];
    unsubs.push(subscribeKernels(tf, (c) => seen.push(copy(c))));
    const before = nowUs();
    const expected = await profiledKernels(model);
    const after = nowUs();
    expect(expected).toEqual(['Conv2D', 'Relu', 'Reshape', 'BatchMatMul']);
    expect(seen.map((s) => s.kernelName)).toEqual(expected);
    const conv = seen.find((s) => s.kernelName === 'Conv2D')!;
    expect(conv.backendName).toBe('cpu');
    expect(conv.inputs).toEqual([
      ['x', [2, 8, 8, 3], 'float32'],
      ['filter', [3, 3, 3, 4], 'float32'],
    ]);
    expect(conv.outputs).toEqual([[[2, 6, 6, 4], 'float32']]);
    for (const s of seen) {
      expect(s.start).toBeGreaterThanOrEqual(before);
      expect(s.end).toBeLessThanOrEqual(after);
      expect(s.end).toBeGreaterThanOrEqual(s.start);
      expect(s.gradDepth).toBe(0);
      expect(s.backward).toBe(false);
      expect(s.kernelDepth).toBe(1);
    }
  });

  it('wraps each kernel once for all listeners and puts the originals back after the last leaves', () => {
    const original = tf.getKernel('Add', 'cpu')!;
    const a: string[] = [];
    const b: string[] = [];
    const ua = subscribeKernels(tf, (c) => a.push(c.kernelName));
    const wrapped = tf.getKernel('Add', 'cpu')!;
    expect(wrapped.kernelFunc).not.toBe(original.kernelFunc);
    const wrappedCount = kernelHubStatus().wrappedKernels;
    expect(wrappedCount).toBeGreaterThan(100);
    const ub = subscribeKernels(tf, (c) => b.push(c.kernelName));
    expect(tf.getKernel('Add', 'cpu')).toBe(wrapped);
    expect(kernelHubStatus()).toEqual({ listeners: 2, wrappedKernels: wrappedCount });
    tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(2)));
    expect(a).toEqual(['Add']);
    expect(b).toEqual(['Add']);
    ua();
    ua(); // twice is harmless
    expect(tf.getKernel('Add', 'cpu')).toBe(wrapped);
    tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(2)));
    expect(a).toEqual(['Add']);
    expect(b).toEqual(['Add', 'Add']);
    ub();
    expect(tf.getKernel('Add', 'cpu')).toBe(original);
    expect(kernelHubStatus()).toEqual({ listeners: 0, wrappedKernels: 0 });
    for (const cfg of tf.getKernelsForBackend('cpu')) expect(cfg.kernelFunc.name).not.toBe('dftracerKernel');
  });

  it('gives each kernel an id of its own that stays the same when the hub is taken out and put back', () => {
    const ids = () => {
      const seen = new Map<string, Set<number>>();
      const off = subscribeKernels(tf, (c) => {
        let s = seen.get(c.kernelName);
        if (s === undefined) seen.set(c.kernelName, (s = new Set()));
        s.add(c.kernelId);
      });
      tf.tidy(() => {
        model();
        tf.add(tf.scalar(1), tf.scalar(2));
      });
      off();
      return seen;
    };
    const first = ids();
    expect([...first.keys()]).toEqual(expect.arrayContaining(['Conv2D', 'Relu', 'Reshape', 'BatchMatMul', 'Add']));
    // One id per kernel, every kernel a different one, small integers.
    for (const s of first.values()) expect(s.size).toBe(1);
    const all = [...first.values()].map((s) => [...s][0]!);
    expect(new Set(all).size).toBe(all.length);
    for (const id of all) expect(Number.isInteger(id) && id >= 0 && id < 10_000).toBe(true);
    expect(ids()).toEqual(first);
  });

  it('hands kernels only to listeners that want them; with none wanting, a kernel reads no clock', () => {
    const a: string[] = [];
    const b: string[] = [];
    const sa = subscribeKernels(tf, (c) => a.push(c.kernelName));
    const sb = subscribeKernels(tf, (c) => b.push(c.kernelName));
    const add = () => tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(2)));
    sa.want(false);
    add();
    expect([a, b]).toEqual([[], ['Add']]);
    sb.want(false);
    const now = vi.spyOn(performance, 'now');
    add();
    expect(now).not.toHaveBeenCalled();
    now.mockRestore();
    // Still subscribed: the kernels stay wrapped and the status counts both.
    expect(kernelHubStatus().listeners).toBe(2);
    expect(tf.getKernel('Add', 'cpu')!.kernelFunc.name).toBe('dftracerKernel');
    sa.want(true);
    sa.want(true); // twice is harmless
    add();
    expect([a, b]).toEqual([['Add'], ['Add']]);
    expect(() => sa.want('yes' as never)).toThrow(/subscribeKernels: want\(on\) takes a boolean; got yes/);
    sa();
    sb();
    sb.want(true); // after unsubscribing: nothing
    expect(kernelHubStatus()).toEqual({ listeners: 0, wrappedKernels: 0 });
    add();
    expect([a, b]).toEqual([['Add'], ['Add']]);
  });

  it('never changes results or creates tensors', () => {
    const plain = model();
    const plainValues = plain.dataSync().slice();
    plain.dispose();
    const tensorsBefore = tf.memory().numTensors;
    unsubs.push(subscribeKernels(tf, () => {}));
    const traced = model();
    expect(tf.memory().numTensors).toBe(tensorsBefore + 1);
    expect(traced.dataSync()).toEqual(plainValues);
    traced.dispose();
  });

  it('tells taped forward kernels (gradDepth > 0) from backward kernels', () => {
    const seen: Seen[] = [];
    unsubs.push(subscribeKernels(tf, (c) => seen.push(copy(c))));
    const x = tf.variable(tf.tensor1d([1, 2, 3]), true, 'hubX');
    const { grads, value } = tf.variableGrads(() => x.square().sum() as tf.Scalar, [x]);
    expect(Array.from(grads.hubX!.dataSync())).toEqual([2, 4, 6]);
    value.dispose();
    grads.hubX!.dispose();
    x.dispose();
    const top = seen.filter((s) => s.kernelDepth === 1);
    const forward = top.filter((s) => !s.backward).map((s) => [s.kernelName, s.gradDepth]);
    expect(forward).toEqual([
      ['Square', 1],
      ['Sum', 1],
    ]);
    const backward = top.filter((s) => s.backward);
    expect(backward.length).toBeGreaterThan(0);
    expect(backward.every((s) => s.gradDepth === 0)).toBe(true);
    expect(backward.map((s) => s.kernelName)).toContain('Multiply');
    // The tape's saved copies are kernels run by the engine inside a kernel call.
    expect(seen.filter((s) => s.kernelDepth === 2).map((s) => s.kernelName)).toContain('Identity');
    // After the backward pass, untaped kernels are plain forward kernels again.
    seen.length = 0;
    tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(2)));
    expect(seen.map((s) => [s.kernelName, s.backward, s.gradDepth])).toEqual([['Add', false, 0]]);
  });

  it('keeps a listener that throws away from the program and reports it once', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const good: string[] = [];
    unsubs.push(
      subscribeKernels(tf, function broken() {
        throw new Error('listener bug');
      }),
    );
    unsubs.push(subscribeKernels(tf, (c) => good.push(c.kernelName)));
    const r = tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(2)).mul(tf.scalar(3)).dataSync()[0]);
    expect(r).toBe(9);
    expect(good).toEqual(['Add', 'Multiply']);
    const warnings = write.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('listener bug'));
    write.mockRestore();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('broken');
  });

  it('picks up kernels registered after the first subscription through syncKernels', () => {
    const seen: string[] = [];
    unsubs.push(subscribeKernels(tf, (c) => seen.push(c.kernelName)));
    const kernelFunc = ({ inputs }: { inputs: { x: tf.TensorInfo } }) => inputs.x;
    tf.registerKernel({ kernelName: 'HubLateKernel', backendName: 'cpu', kernelFunc: kernelFunc as unknown as tf.KernelFunc });
    expect(syncKernels(tf)).toBe(1);
    expect(syncKernels(tf)).toBe(0);
    const x = tf.scalar(5);
    tf.engine().runKernel('HubLateKernel', { x }, {});
    expect(seen).toEqual(['HubLateKernel']);
    unsubs.pop()!();
    expect(tf.getKernel('HubLateKernel', 'cpu')!.kernelFunc).toBe(kernelFunc);
    tf.unregisterKernel('HubLateKernel', 'cpu');
    x.dispose();
  });

  it('names a bad argument', () => {
    expect(() => subscribeKernels({} as never, () => {})).toThrow(/tfCore must be the tfjs module/);
    expect(() => subscribeKernels(tf, 3 as never)).toThrow(/listener must be a function/);
  });
});
