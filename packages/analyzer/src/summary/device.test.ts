import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarize, formatSummary } from './summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/**
 * A call [0, 100) launching two kernels (dispatch [10, 20) and [30, 35) on the thread) that run on
 * the GPU afterwards: [20, 220) and [220, 270) on the device track `webgpu:0` (COMMON format).
 */
function writeGpuTrace(path: string): number {
  const t0 = 1_770_000_000_000_000;
  const w = new TraceWriter({ path, pid: 300 });
  const track = 300_000_001;
  w.header();
  w.threadName(track, 'webgpu:0');
  w.start(t0);
  const call = w.begin('call', 'compute', t0);
  const a = w.complete('function.Conv2DBackpropFilter', 'dynamo', t0 + 10, 10, { args: { device_us: 200 } });
  const b = w.complete('function.Relu', 'dynamo', t0 + 30, 5, { args: { device_us: 50 } });
  w.exit(call, t0 + 100);
  w.complete('function.Conv2DBackpropFilter', 'dynamo', t0 + 20, 200, { tid: track, parent: null, args: { device_us: 200, device_track: 'webgpu:0', launch_id: a.id } });
  w.complete('function.Relu', 'dynamo', t0 + 220, 50, { tid: track, parent: null, args: { device_us: 50, device_track: 'webgpu:0', launch_id: b.id } });
  w.end(t0 + 270);
  w.close();
  return t0;
}

describe('GPU device time', () => {
  it('counts device-track kernels as compute (a union with their dispatch), never as host time', async () => {
    const path = join(dir, 'gpu.pfw.gz');
    writeGpuTrace(path);
    const s = await summarize([path], { threads: 1 });
    expect(s.wall_us).toBe(270);
    // host compute [0, 100) and device [20, 270): 270, not 100 + 250
    expect(s.totals.compute_us).toBe(270);
    expect(s.phases.totals.compute_us).toBe(270);
    expect(s.phases.totals.idle_us).toBe(0);
    // host tables: each kernel once, with its dispatch time
    const relu = s.by_name.find((n) => n.name === 'function.Relu')!;
    expect(relu).toMatchObject({ count: 1, total_us: 5, busy_us: 5, self_us: 5 });
    expect(s.by_cat.find((c) => c.cat === 'dynamo')).toMatchObject({ count: 2, total_us: 15 });
    expect(s.top_events.every((e) => e.tid !== 300_000_001)).toBe(true);
    // the device line
    expect(s.device).toMatchObject({ tracks: ['webgpu:0'], events: 2, busy_us: 250, source: 'device-track' });
    expect(s.device!.kernels).toEqual([
      { cat: 'dynamo', name: 'function.Conv2DBackpropFilter', count: 1, device_us: 200 },
      { cat: 'dynamo', name: 'function.Relu', count: 1, device_us: 50 },
    ]);
    expect(formatSummary(s)).toMatch(/device: busy 250 µs \(92\.6% of wall\) on webgpu:0; top kernels by device time: function\.Conv2DBackpropFilter 200 µs, function\.Relu 50 µs/);
  });

  it('has no device line without device time', async () => {
    const path = join(dir, 'cpu.pfw');
    const w = new TraceWriter({ path, pid: 301 });
    w.header();
    w.start(1000);
    w.complete('forward', 'compute', 1000, 10);
    w.end(1010);
    w.close();
    const s = await summarize([path], { threads: 1 });
    expect(s.device).toBeNull();
    expect(formatSummary(s)).not.toMatch(/device:/);
  });

  it('counts a kernel seen only on its device track, whether its name is kept or not', async () => {
    // host compute [0, 100), then a kernel no host event names on the device [100, 150)
    const t0 = 1_770_000_000_000_000;
    const path = join(dir, 'device-only.pfw.gz');
    const w = new TraceWriter({ path, pid: 330 });
    const track = 330_000_001;
    w.header();
    w.threadName(track, 'webgpu:0');
    w.start(t0);
    w.complete('step', 'compute', t0, 100);
    w.complete('gemm', 'dynamo', t0 + 100, 50, { tid: track, parent: null, args: { device_us: 50, device_track: 'webgpu:0' } });
    w.end(t0 + 150);
    w.close();
    for (const namesKept of [1000, 0]) {
      const s = await summarize([path], { threads: 1, namesKept });
      expect(s.wall_us).toBe(150);
      expect(s.totals.compute_us).toBe(150);
      expect(s.phases.totals.compute_us).toBe(150);
      expect(s.device).toMatchObject({ events: 1, busy_us: 50 });
    }
  });

  it('with several processes, says the shares are of their walls summed: a share of the wall time would exceed 100 %', async () => {
    // two processes over the same 100 µs: each computes [0, 100) and keeps its GPU busy [0, 90)
    const t0 = 1_770_000_000_000_000;
    const paths = [310, 320].map((pid) => {
      const path = join(dir, `rank-${pid}.pfw.gz`);
      const w = new TraceWriter({ path, pid });
      const track = pid * 1_000_000 + 1;
      w.header();
      w.threadName(track, 'webgpu:0');
      w.start(t0);
      w.complete('step', 'compute', t0, 100);
      w.complete('kernel', 'dynamo', t0, 90, { tid: track, parent: null, args: { device_us: 90, device_track: 'webgpu:0' } });
      w.end(t0 + 100);
      w.close();
      return path;
    });
    const s = await summarize(paths, { threads: 1 });
    expect(s.wall_us).toBe(100);
    expect(s.totals.compute_us).toBe(200);
    expect(s.device).toMatchObject({ busy_us: 180 });
    const text = formatSummary(s);
    // 200 µs of compute and 180 µs of GPU time in 100 µs of wall time: shares of the 200 µs of process time
    expect(text).toMatch(/; wall time 100 µs, process time 200 µs \(each process's wall, summed: the shares are of it\)$/m);
    expect(text).toMatch(/^compute 200 µs \(100\.0%\) /m);
    expect(text).toMatch(/device: busy 180 µs \(90\.0% of process time\) on webgpu:0;/);
  });
});
