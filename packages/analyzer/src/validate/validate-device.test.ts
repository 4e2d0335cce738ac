/**
 * GPU device time (issue 26's layout): each kernel event on the program's thread has a twin on a
 * device track — its own tid, named like `webgpu:0` — with `device_us`, `device_track` and
 * `launch_id`, laid out in execution order. It overlaps the CPU events in time; kernels on one
 * device track must not overlap each other.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter, type Span } from '../test-util/trace-writer.test-util.js';
import { validateFiles, type FileValidation } from './validate.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

const PID = 9100;
const GPU = PID * 16 + 15;
const T0 = 1_760_934_170_000_000;

/**
 * Three kernels dispatched back to back (dispatch 20 µs each) whose GPU work runs afterwards,
 * one after another, on the device track. `twist` plants one problem.
 */
function gpuTrace(name: string, twist?: 'overlap' | 'nested' | 'bad-launch' | 'level'): string {
  const path = join(dir, name);
  const w = new TraceWriter({ path, pid: PID });
  w.header();
  w.processName(`app.mjs (${PID})`);
  w.threadName(GPU, 'webgpu:0');
  w.start(T0);
  const step = w.begin('step', 'compute', T0 + 10);
  const kernels: Array<{ span: Span; device: number }> = [];
  for (let k = 0; k < 3; k++) {
    const device = 100 + k * 10;
    const span = w.begin(`function.Conv2D`, 'dynamo', T0 + 20 + k * 20, { args: { device_us: device } });
    w.exit(span, T0 + 40 + k * 20);
    kernels.push({ span, device });
  }
  let gpuAt = T0 + 30;
  let prevStart = gpuAt;
  for (const [k, { span, device }] of kernels.entries()) {
    // overlap: the last kernel starts 5 µs before the one before it ends; nested: inside it
    const ts = twist === 'overlap' && k === 2 ? gpuAt - 5 : twist === 'nested' && k === 2 ? prevStart + 5 : gpuAt;
    const dur = twist === 'nested' && k === 2 ? 10 : device;
    prevStart = ts;
    w.writeComplete(
      { id: w.nextIdForTest(), name: span.name, cat: 'dynamo', tid: GPU, ts, level: twist === 'level' && k === 0 ? 2 : 1, pIdx: twist === 'level' && k === 0 ? step.id : -1 },
      dur,
      { device_us: device, device_track: 'webgpu:0', launch_id: twist === 'bad-launch' && k === 1 ? 99_999 : span.id },
    );
    gpuAt = Math.max(gpuAt, ts + dur);
  }
  w.exit(step, gpuAt + 10);
  w.end(gpuAt + 20);
  w.close();
  return path;
}

async function check(path: string): Promise<FileValidation> {
  return (await validateFiles([path], { threads: 0 })).files[0]!;
}

describe('validate: GPU device tracks', () => {
  it('accepts kernels on a device track that overlap the CPU events of their launch', async () => {
    const v = await check(gpuTrace('gpu.pfw'));
    expect(v.problems, JSON.stringify(v.problems)).toEqual([]);
    expect(v.warnings).toEqual([]);
    expect(v.events).toBe(3 + 3 + 3); // start, step, end; 3 kernels; 3 device-track twins
    expect(v.tracks).toBe(2);
  });

  it('rejects kernels that overlap on one device track, partially or nested', async () => {
    for (const twist of ['overlap', 'nested'] as const) {
      const v = await check(gpuTrace(`gpu-${twist}.pfw`, twist));
      expect(v.problems.map((g) => g.kind), twist).toEqual(['overlap']);
      expect(v.problems[0]!.examples[0]!.message).toMatch(/device-track event \d+ .* overlaps kernel \d+ .* one after another/);
    }
  });

  it('a device-track kernel is top-level on its track', async () => {
    const v = await check(gpuTrace('gpu-level.pfw', 'level'));
    expect(v.problems.map((g) => g.kind)).toContain('level');
  });

  it('warns when launch_id names no event', async () => {
    const v = await check(gpuTrace('gpu-launch.pfw', 'bad-launch'));
    expect(v.problems).toEqual([]);
    expect(v.warnings).toEqual([expect.stringMatching(/launch_id names no event of its run \(e\.g\. 99999\) \(line \d+\)/)]);
    const strict = (await validateFiles([join(dir, 'gpu-launch.pfw')], { threads: 0, strict: true })).files[0]!;
    expect(strict.problems.map((g) => g.kind)).toEqual(['strict']);
  });
});
