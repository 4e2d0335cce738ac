// ai's loadTf (@dftracer/tfjs's, then useTf): the compute hooks on the pure-JS backends.
import { join } from 'node:path';
import { finalize, getTime, initializeLog } from '@dftracer/core';
import { currentTf } from '@dftracer/tfjs';
import { readTrace, tempDir, within, type Trace } from '@dftracer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASM_TRAINING_KERNELS } from '@dftracer/tfjs';
import { ai, loadTf } from './index.js';

let file = '';
const checks: ((t: Trace) => void)[] = [];

beforeAll(() => {
  file = initializeLog({ enable: true, logFile: join(tempDir(), 'hooks'), compression: false, disableIo: true }).file!;
});

afterAll(() => {
  finalize();
  const t = readTrace(file);
  for (const c of checks) c(t);
});

describe("ai's loadTf", () => {
  it('loads as @dftracer/tfjs does, reports it, and hands the namespace over', async () => {
    const r = await loadTf({ prefer: ['wasm'], sync: 'auto' });
    expect([r.package, r.backend, r.addedKernels]).toEqual(['@tensorflow/tfjs', 'wasm', [...WASM_TRAINING_KERNELS]]);
    expect(currentTf()).toBe(r.tf);
    await expect(loadTf({ prefer: ['tpu' as never] })).rejects.toThrow(/^loadTf: prefer\[0\] is an unknown candidate "tpu"/);
    checks.push((t) => expect(t.meta.some((m) => m.name === 'CM' && m.args.name === 'tfjs')).toBe(true));
  });

  it('gives compute tracers output shapes, bytes and memory deltas; waits for device work when asked (sync: true)', async () => {
    const { tf } = await loadTf({ prefer: ['wasm'], sync: true });
    const t0 = getTime();
    const matmul = ai.compute.forward((a: import('@tensorflow/tfjs').Tensor) => tf.matMul(a, a));
    const a = tf.ones([64, 64]);
    const out = matmul(a);
    const two = ai.compute.backward(async () => [tf.zeros([2, 3], 'int32'), tf.ones([5], 'bool')])();
    expect((await two).length).toBe(2);
    await new Promise((r) => setTimeout(r, 20)); // the forward event closes once its data() read settles
    expect(out.shape).toEqual([64, 64]);
    tf.dispose([a, out, ...(await two)]);
    const broken = ai.compute.step(() => 'not a tensor')();
    expect(broken).toBe('not a tensor');
    const t1 = getTime();
    await loadTf({ prefer: ['wasm'] }); // back to the defaults for later tests
    checks.push((t) => {
      const evs = within(t.program, t0, t1);
      const fw = evs.find((e) => e.name === 'forward')!;
      expect(fw.args).toMatchObject({ out_shape: [64, 64], out_bytes: 64 * 64 * 4, tensors_delta: 1, bytes_delta: 64 * 64 * 4 });
      const bw = evs.find((e) => e.name === 'backward')!;
      expect(bw.args).toMatchObject({ out_shape: [[2, 3], [5]], out_bytes: 2 * 3 * 4 + 5, tensors_delta: 2 });
      const st = evs.find((e) => e.name === 'step')!;
      expect(st.args.out_shape).toBeUndefined();
      expect(st.args.tensors_delta).toBe(0);
    });
  });

  it('writes the same args, in the same order, call after call and across overlapping async calls', async () => {
    const { tf } = await loadTf({ prefer: ['cpu'] });
    const t0 = getTime();
    const ins = ai.compute.forward({ epoch: 3, step: 4 });
    const add = ins((a: import('@tensorflow/tfjs').Tensor) => tf.add(a, a));
    const pair = ins((a: import('@tensorflow/tfjs').Tensor) => ({ x: tf.relu(a), y: a.toInt(), n: 1 }));
    const later = ins(async (n: number) => {
      const t = tf.zeros([n]);
      await new Promise((r) => setTimeout(r, 10));
      return t;
    });
    const a = tf.ones([2, 3]);
    const b = tf.ones([4]);
    const outs = [add(a), add(b), add(a)];
    const p = pair(a);
    // Two async calls open at once, a sync one in between: each keeps its own memory mark.
    const l1 = later(5);
    const l2 = later(7);
    outs.push(add(b));
    outs.push(...(await Promise.all([l1, l2])));
    expect(() =>
      ins(() => {
        throw new Error('bad op');
      })(),
    ).toThrow('bad op');
    outs.push(add(a));
    tf.dispose([a, b, p.x, p.y, ...outs]);
    const t1 = getTime();
    checks.push((t) => {
      const evs = within(t.program, t0, t1).filter((e) => e.name === 'forward' && e.cat === 'compute');
      const user = (e: (typeof evs)[number]) => Object.entries(e.args ?? {}).filter(([k]) => k !== 'hhash' && k !== 'level' && k !== 'p_idx');
      const row = (shape: unknown, bytes: number, tensors: number) => [['epoch', 3], ['step', 4], ['out_shape', shape], ['out_bytes', bytes], ['tensors_delta', tensors], ['bytes_delta', bytes]];
      // Memory deltas are the engine's totals: calls open at once see each other's tensors.
      expect(evs.map(user)).toEqual([
        row([2, 3], 24, 1),
        row([4], 16, 1),
        row([2, 3], 24, 1),
        [['epoch', 3], ['step', 4], ['out_shape', [[2, 3], [2, 3]]], ['out_bytes', 48], ['tensors_delta', 2], ['bytes_delta', 48]],
        row([4], 16, 1),
        [['epoch', 3], ['step', 4], ['out_shape', [5]], ['out_bytes', 20], ['tensors_delta', 3], ['bytes_delta', 20 + 28 + 16]],
        [['epoch', 3], ['step', 4], ['out_shape', [7]], ['out_bytes', 28], ['tensors_delta', 2], ['bytes_delta', 28 + 16]],
        [['epoch', 3], ['step', 4]],
        row([2, 3], 24, 1),
      ]);
    });
  });
});
