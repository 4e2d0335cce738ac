/**
 * The profiler's GPU activity on tfjs's WebGPU backend (Mesa's software renderer through Dawn):
 * without timestamp queries `deviceTime: 'timestamp'` and `'sync'` are refused at start() with the
 * reason; with timestamps (a fake GPU clock on the real device) each kernel carries its device
 * time, in the PP events (`device_us`) and in keyAverages' device columns.
 */
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { deviceTimesSettled, loadTf, releaseWebGPU } from '@dftracer/tfjs';
import { fakeTimestamps, MESA_WEBGPU, onMesaWebGPU, readTrace, tempDir, traceProblems } from '@dftracer/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { profile, ProfilerActivity, schedule, traceHandler, type ProfilerResult } from './index.js';
import { tf } from './tfjs.test-util.js';

const reason = await onMesaWebGPU(() => loadTf({ prefer: ['webgpu'], tf, webgpu: MESA_WEBGPU }));

afterAll(() => {
  if (reason === '') releaseWebGPU();
});

function step(): void {
  tf.tidy(() => {
    const a = tf.randomNormal([16, 32]);
    const b = tf.randomNormal([32, 8]);
    tf.relu(tf.matMul(a, b)).sum();
  });
}

describe.skipIf(reason !== '')('profiler on webgpu', () => {
  it("refuses deviceTime 'timestamp' and 'sync' where the adapter cannot do them, saying why", () => {
    expect(() => profile({ tf, deviceTime: 'timestamp' }).start()).toThrow(/profile: deviceTime 'timestamp' is not possible: the WebGPU adapter has no timestamp-query feature/);
    expect(() => profile({ tf, deviceTime: 'sync' }).start()).toThrow(/profile: deviceTime 'sync' is not possible on backend webgpu/);
    expect(() => profile({ tf, deviceTime: 'fast' as never })).toThrow(/profile: deviceTime must be 'auto', 'timestamp', 'sync' or 'off'/);
  });

  it('gives GPU kernels their device time in PP events and keyAverages, once the timestamps are read back', async () => {
    const fake = fakeTimestamps(tf.backend() as never, (k) => (k + 1) * 1000);
    const file = initializeLog({ enable: true, logFile: join(tempDir(), 'profiler-webgpu'), compression: false, disableIo: true }).file!;
    const ready: ProfilerResult[] = [];
    try {
      const p = profile({ tf, activities: [ProfilerActivity.GPU], deviceTime: 'timestamp', schedule: schedule({ wait: 1, warmup: 0, active: 2, repeat: 1 }), onTraceReady: (r) => {
        ready.push(r);
        traceHandler(r);
      } }).start();
      for (let i = 0; i < 4; i++) {
        step();
        p.step();
      }
      await p.stop();
      await deviceTimesSettled();
    } finally {
      fake.restore();
      finalize();
    }
    expect(ready).toHaveLength(1);
    const kernels = ready[0]!.events().filter((e) => e.kind === 'kernel');
    const timed = kernels.filter((e) => e.deviceTime !== undefined);
    expect(timed.length).toBe(kernels.length);
    // Every timed pass belongs to one kernel: the kernels' device times add up to the fake's.
    const sumUs = fake.durationsNs.reduce((a, b) => a + b, 0) / 1000;
    const got = timed.reduce((a, e) => a + e.deviceTime!, 0);
    expect(Math.abs(got - sumUs)).toBeLessThanOrEqual(timed.length); // rounding to whole µs per kernel
    expect(timed.some((e) => e.name === 'BatchMatMul' && e.deviceTime! > 0)).toBe(true);
    const avg = ready[0]!.keyAverages();
    const mm = avg.find((r) => r.key === 'BatchMatMul')!;
    expect(mm.deviceTimeTotal).toBe(timed.filter((e) => e.name === 'BatchMatMul').reduce((a, e) => a + e.deviceTime!, 0));
    expect(avg.table({ sortBy: 'self_device_time_total' })).toMatch(/Self GPU/);
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    const pp = t.complete.filter((e) => e.cat === 'PP');
    expect(pp.length).toBe(kernels.length);
    expect(pp.every((e) => e.args.device === 1 && typeof e.args.device_us === 'number')).toBe(true);
    expect(pp.reduce((a, e) => a + (e.args.device_us as number), 0)).toBe(got);
  });

  it('never reads device memory back or waits for the GPU while profiling (device time off)', async () => {
    type Reads = Record<'read' | 'readSync' | 'readToGPU', (...a: unknown[]) => unknown>;
    const gpu = tf.backend() as unknown as Reads;
    const counts = { read: 0, readSync: 0, readToGPU: 0 };
    const originals = { read: gpu.read, readSync: gpu.readSync, readToGPU: gpu.readToGPU };
    const file = initializeLog({ enable: true, logFile: join(tempDir(), 'profiler-webgpu-noread'), compression: false, disableIo: true }).file!;
    const ready: ProfilerResult[] = [];
    const outs: import('@tensorflow/tfjs').Tensor[] = [];
    for (const k of Object.keys(counts) as (keyof typeof counts)[]) {
      gpu[k] = function (this: unknown, ...a: unknown[]) {
        counts[k]++;
        return originals[k].apply(this, a);
      };
    }
    try {
      // Every option that records more per kernel on: shapes, memory, stacks, both activities.
      const p = profile({ tf, activities: [ProfilerActivity.CPU, ProfilerActivity.GPU], deviceTime: 'off', recordShapes: true, profileMemory: true, withStack: true, schedule: schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 }), onTraceReady: (r) => {
        ready.push(r);
        traceHandler(r);
      } }).start();
      for (let i = 0; i < 5; i++) {
        outs.push(tf.tidy(() => tf.relu(tf.matMul(tf.randomNormal([16, 32]), tf.randomNormal([32, 8])))));
        p.step();
      }
      await p.stop();
    } finally {
      Object.assign(gpu, originals);
      finalize();
    }
    expect(counts).toEqual({ read: 0, readSync: 0, readToGPU: 0 });
    // The work was done and profiled: the results are real, the kernels are in the trace.
    for (const o of outs) expect((await o.data()).every(Number.isFinite)).toBe(true);
    tf.dispose(outs);
    expect(ready).toHaveLength(1);
    expect(ready[0]!.events().some((e) => e.kind === 'kernel' && e.name === 'BatchMatMul')).toBe(true);
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.filter((e) => e.cat === 'PP' && e.name === 'BatchMatMul').length).toBeGreaterThan(0);
  });
});
