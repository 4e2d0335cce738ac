// loadTf's order and report, and the compute hooks on the pure-JS backends.
import { join } from 'node:path';
import { finalize, getTime, initializeLog } from '@dftracer/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ai, isAsyncBackend, loadTf, WASM_TRAINING_KERNELS } from './index.js';
import { readTrace, tempDir, within, type Trace } from '@dftracer/testing';

let file = '';
const checks: ((t: Trace) => void)[] = [];

beforeAll(() => {
  file = initializeLog({ enable: true, logFile: join(tempDir(), 'load'), compression: false, disableIo: true }).file!;
});

afterAll(() => {
  finalize();
  const t = readTrace(file);
  for (const c of checks) c(t);
});

describe('loadTf', () => {
  it('takes the best tfjs present (here: @tensorflow/tfjs on wasm), saying why it passed over the others', async () => {
    const r = await loadTf();
    expect([r.package, r.backend, r.device]).toEqual(['@tensorflow/tfjs', 'wasm', 'wasm']);
    expect(r.tf.getBackend()).toBe('wasm');
    expect(r.skipped.map((s) => s.package)).toEqual(['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']);
    for (const s of r.skipped) expect(s.reason.length).toBeGreaterThan(0);
    expect(isAsyncBackend(r.tf)).toBe(false);
    expect(r.addedKernels).toEqual([...WASM_TRAINING_KERNELS]);
    expect((await loadTf()).addedKernels).toEqual([]); // already there
    checks.push((t) => {
      const cm = t.meta.filter((m) => m.name === 'CM' && m.args.name === 'tfjs').map((m) => JSON.parse(m.args.value));
      expect(cm[0]).toMatchObject({ package: '@tensorflow/tfjs', backend: 'wasm', device: 'wasm', version: '4.22.0', added_kernels: [...WASM_TRAINING_KERNELS] });
      expect(cm[1]).toMatchObject({ backend: 'wasm', added_kernels: [] });
    });
  });

  it('falls back along `prefer`, and rejects unknown candidates by name', async () => {
    const cpu = await loadTf({ prefer: ['cpu'] });
    expect([cpu.backend, cpu.device, cpu.tf.getBackend()]).toEqual(['cpu', 'cpu', 'cpu']);
    await expect(loadTf({ prefer: ['tpu' as never] })).rejects.toThrow(/unknown candidate "tpu"/);
    await expect(loadTf({ prefer: [] })).rejects.toThrow(/prefer must be a non-empty array/);
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
});
