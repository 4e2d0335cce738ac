import { finalize, initializeLog } from '@dftracer/core';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProfilerActivity } from './activity.js';
import { profile } from './profiler.js';
import type { ProfilerResult } from './result.js';
import { traceHandler } from './trace-handler.js';
import { readTrace, tempDir, type TraceEvent } from '@dftracer/testing';
import { tf } from './tfjs.test-util.js';

// No GPU backend runs in Node here; a backend registered under a GPU backend's name ('webgpu'),
// sharing the cpu backend's instance and kernels, goes through the same engine and registry paths,
// so the profiler's device routing is checked end to end.
let gpuOnly: ProfilerResult;
let cpuOnly: ProfilerResult;
let trace: TraceEvent[];

beforeAll(async () => {
  await tf.setBackend('cpu');
  const cpu = tf.engine().registry.cpu!;
  tf.registerBackend('webgpu', () => cpu, 0);
  tf.copyRegisteredKernels('cpu', 'webgpu');
  await tf.setBackend('webgpu');
  const dir = tempDir();
  const log = initializeLog({ enable: true, logFile: join(dir, 'gpu'), dataDir: join(dir, 'none'), compression: false });
  const work = (): void => tf.tidy(() => void tf.matMul(tf.ones([16, 16]), tf.ones([16, 16])).relu().sum());
  let p = profile({ tf, activities: [ProfilerActivity.GPU], profileMemory: true, recordShapes: true, onTraceReady: traceHandler });
  p.start();
  work();
  await p.stop();
  gpuOnly = p.result!;
  p = profile({ tf, activities: [ProfilerActivity.CPU] });
  p.start();
  work();
  await p.stop();
  cpuOnly = p.result!;
  finalize();
  trace = readTrace(log.file!).complete;
});

describe('kernels of a GPU backend', () => {
  it('are device 1 and recorded only with the GPU activity', () => {
    const k = gpuOnly.events().filter((e) => e.kind === 'kernel');
    expect(k.map((e) => e.name)).toEqual(expect.arrayContaining(['BatchMatMul', 'Relu', 'Sum']));
    expect(k.every((e) => e.device === 1 && e.backend === 'webgpu')).toBe(true);
    expect(cpuOnly.events().filter((e) => e.kind === 'kernel')).toEqual([]);
  });

  it('count as device time and device memory in keyAverages and its table', () => {
    const ka = gpuOnly.keyAverages();
    const mm = ka.find((r) => r.key === 'BatchMatMul')!;
    const ev = gpuOnly.events().filter((e) => e.name === 'BatchMatMul');
    expect(mm.deviceTimeTotal).toBe(ev.reduce((s, e) => s + e.duration, 0));
    expect(mm.cpuTimeTotal).toBe(0);
    expect(mm.deviceMemoryUsage).toBe(16 * 16 * 4);
    const table = ka.table({ sortBy: 'device_time_total' });
    expect(table).toMatch(/Self GPU\s+Self GPU %\s+GPU total\s+GPU time avg/);
    expect(table).toMatch(/Self GPU time total: /);
  });

  it('are written with device 1, device_memory_usage and total_device_percent', () => {
    const pp = trace.filter((e) => e.cat === 'PP' && e.args.device === 1);
    expect(pp.length).toBe(gpuOnly.events().filter((e) => e.kind === 'kernel').length);
    const mm = pp.find((e) => e.name === 'BatchMatMul')!;
    expect(mm.args.device_memory_usage).toBe(16 * 16 * 4);
    expect(mm.args.cpu_memory).toBe(0);
    expect(mm.args.total_cpu_percent).toBe(0);
    const share = pp.reduce((s, e) => s + (e.args.total_device_percent as number), 0);
    expect(share).toBeGreaterThan(99);
    expect(share).toBeLessThan(101);
  });
});
