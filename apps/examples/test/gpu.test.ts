import { describe, expect, it } from 'vitest';
import { expectValid, named, ofCat, runExample } from './harness.js';

// On Mesa's software renderer (CI installs it): WebGPU runs, but without timestamp queries, so the
// example says why device time is off; on a GPU the same program writes the device track.
const MESA = { EGL_PLATFORM: 'surfaceless', DFTRACER_WEBGPU_DAWN_OPTIONS: 'backend=opengles', DFTRACER_WEBGPU_FEATURE_LEVEL: 'compatibility', GPU_STEPS: '8', GPU_BATCH: '4' };

describe('gpu-training', () => {
  it('trains on WebGPU, traced as on cpu, and records why device time is off without timestamp queries', async () => {
    const run = await runExample('gpu-training', { env: MESA });
    await expectValid(run.files);
    const cm = (name: string) => run.metadata.filter((m) => m.name === 'CM' && m.args?.name === name).map((m) => JSON.parse(String(m.args?.value)));
    const tfjs = cm('tfjs')[0];
    if (tfjs.backend !== 'webgpu') {
      console.warn(`\n!!! gpu-training ran on ${tfjs.backend} (WebGPU on Mesa is not available here): the WebGPU checks are skipped !!!\n`);
      return;
    }
    expect(run.stdout).toMatch(/tfjs {4}webgpu: a GPU through WebGPU \(Dawn\), llvmpipe.*software renderer, no timestamp-query/);
    expect(tfjs).toMatchObject({ device: 'webgpu', software: true, timestamp_query: false });
    const dt = cm('tfjs.device_time');
    expect(dt.map((d) => d.by).sort()).toEqual(['dynamo', 'profile']);
    for (const d of dt) expect(d).toMatchObject({ mode: 'off', reason: expect.stringMatching(/no timestamp-query/) });
    const kernels = ofCat(run.events, 'dynamo').filter((e) => e.name.startsWith('function.'));
    for (const k of ['function.Conv2D', 'function.Conv2DBackpropFilter', 'function.BatchMatMul']) expect(named(kernels, k).length).toBeGreaterThan(0);
    expect(kernels.some((e) => e.args?.device_track !== undefined || e.args?.device_us !== undefined)).toBe(false);
    expect(ofCat(run.events, 'compute').filter((e) => e.name === 'step' || e.name === 'trainStep').length).toBe(8);
    expect(ofCat(run.events, 'PP').length).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/trained 8 steps of 4 on webgpu/);
  });
});
