/**
 * dynamo on tfjs's WebGPU backend through Dawn, on Mesa's software renderer (no GPU needed; CI
 * installs Mesa's EGL/GLES). Mesa has no timestamp queries: device time is off there, and the
 * timestamp path runs with a fake clock on the real device (`fakeTimestamps`).
 */
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceTimesSettled, setUpWebGPU } from '@dftracer/tfjs';
import { fakeTimestamps, traceProblems, readTrace, type FakeTimestamps, type TraceEvent } from '@dftracer/testing';
import { compile, createBackend } from './index.js';
import { simpleModel } from './models.test-util.js';
import { startTrace } from './trace.test-util.js';

process.env.EGL_PLATFORM ??= 'surfaceless';

let available = '';
let release: (() => void) | null = null;
try {
  const got = await setUpWebGPU(tf as never, { webgpu: { dawnOptions: ['backend=opengles'], featureLevel: 'compatibility' }, explicit: true });
  release = got.release;
} catch (e) {
  available = (e as Error).message;
  console.warn(`\n!!! WebGPU on Mesa is not available here (${available}): SKIPPING the webgpu tests (CI installs libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri) !!!\n`);
}

let stop: ReturnType<typeof startTrace>;
const checks: ((events: TraceEvent[]) => void)[] = [];

beforeAll(() => {
  if (available !== '') return;
  stop = startTrace('webgpu');
});

afterAll(() => {
  if (available !== '') return;
  const events = stop();
  expect(traceProblems(readTrace(stop.file))).toEqual([]);
  for (const c of checks) c(events);
  release?.();
});

const input = () => tf.randomNormal([2, 32, 32, 3], 0, 1, 'float32', 9) as tf.Tensor4D;

describe.skipIf(available !== '')('dynamo on webgpu (Mesa, no timestamp-query)', () => {
  it('runs on the webgpu backend and traces a compiled model as on cpu', async () => {
    expect(tf.getBackend()).toBe('webgpu');
    const model = simpleModel();
    const m = compile(model, { backend: createBackend({ name: 'gpu' }) });
    const x = input();
    const y = m.predict(x) as tf.Tensor;
    await y.data();
    tf.dispose([x, y]);
    checks.push((events) => {
      const call = events.find((e) => e.name === 'gpu.SimpleModel.predict')!;
      expect(call).toBeDefined();
      const kernels = events.filter((e) => e.cat === 'dynamo' && e.name.startsWith('function.') && e.ts >= call.ts && e.ts + e.dur <= call.ts + call.dur);
      expect(kernels.map((k) => k.name)).toEqual(expect.arrayContaining(['function.FusedConv2D', 'function.MaxPool', 'function._FusedMatMul']));
      // Without timestamps, no device time and no device track.
      expect(kernels.every((k) => k.args.device_us === undefined)).toBe(true);
    });
  });

  it("deviceTime 'timestamp' and 'sync' fail at compile with the reason; 'auto' says why it is off", () => {
    const model = simpleModel();
    expect(() => compile(model, { backend: createBackend({ deviceTime: 'timestamp' }) })).toThrow(/deviceTime 'timestamp' is not possible: the WebGPU adapter has no timestamp-query feature/);
    expect(() => compile(model, { backend: createBackend({ deviceTime: 'sync' }) })).toThrow(/deviceTime 'sync' is not possible on backend webgpu: WebGPU's JavaScript API cannot wait/);
    expect(() => createBackend({ deviceTime: 'always' as never })).toThrow(/createBackend: deviceTime must be 'auto', 'timestamp', 'sync' or 'off'; got "always"/);
    checks.push(() => {
      const cm = readTrace(stop.file).meta.filter((m) => m.name === 'CM' && m.args.name === 'tfjs.device_time');
      expect(cm.length).toBeGreaterThan(0);
      expect(String(cm[0]!.args.value)).toMatch(/"mode":"off".*no timestamp-query/);
    });
  });
});

describe.skipIf(available !== '')('dynamo on webgpu with timestamp queries (fake GPU clock on the real device)', () => {
  let fake: FakeTimestamps;
  beforeAll(() => {
    fake = fakeTimestamps(tf.backend() as never);
  });
  afterAll(() => fake.restore());

  it('gives each kernel event its device time, written after the times resolve, and a device track in execution order', async () => {
    const model = simpleModel();
    const m = compile(model, { backend: createBackend({ name: 'timed', deviceTime: 'timestamp' }) });
    const x = input();
    const before = fake.passes;
    const y = m.predict(x) as tf.Tensor;
    const out = await y.data();
    await deviceTimesSettled();
    const durations = fake.durationsNs.slice(before);
    expect(durations.length).toBeGreaterThan(3);
    expect(out.every(Number.isFinite)).toBe(true);
    tf.dispose([x, y]);
    checks.push((events) => {
      const call = events.find((e) => e.name === 'timed.SimpleModel.predict')!;
      const launched = events.filter((e) => e.cat === 'dynamo' && e.name.startsWith('function.') && e.args.device_track === undefined && e.ts >= call.ts && e.ts <= call.ts + call.dur);
      const timed = launched.filter((e) => typeof e.args.device_us === 'number').sort((a, b) => a.id - b.id);
      expect(timed.length).toBe(launched.length);
      // Kernels in dispatch order consume the fake's passes in order: each device_us is the sum of its own.
      let k = 0;
      for (const e of timed) {
        if (e.args.device_us === 0) continue;
        let sumNs = 0;
        while (k < durations.length && Math.round(sumNs / 1000) < e.args.device_us) sumNs += durations[k++]!;
        expect(Math.round(sumNs / 1000)).toBe(e.args.device_us);
      }
      expect(k).toBe(durations.length);
      // The device track: one event per kernel that ran GPU programs, in execution order, never overlapping.
      const track = events.filter((e) => e.args.device_track === 'webgpu:0' && timed.some((t) => t.id === e.args.launch_id));
      expect(track.length).toBe(timed.filter((e) => e.args.device_us > 0).length);
      const tids = new Set(track.map((e) => e.tid));
      expect(tids.size).toBe(1);
      expect(track[0]!.tid).not.toBe(call.tid);
      for (let i = 1; i < track.length; i++) expect(track[i]!.ts).toBeGreaterThanOrEqual(track[i - 1]!.ts + track[i - 1]!.dur);
      for (const d of track) {
        const launch = timed.find((t) => t.id === d.args.launch_id)!;
        expect(d.name).toBe(launch.name);
        expect(d.args.device_us).toBe(launch.args.device_us);
        expect(d.ts).toBeGreaterThanOrEqual(launch.ts); // never before its launch
        expect(d.id).toBeGreaterThan(launch.id);
      }
      expect(track.map((e) => e.args.launch_id)).toEqual([...track.map((e) => e.args.launch_id)].sort((a, b) => a - b));
    });
  });
});
