/**
 * loadTf's WebGPU candidate on Mesa's software renderer through Dawn's OpenGL ES backend (CI
 * installs libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri): chosen only when named, reported with
 * its adapter, released at finalize so the program exits by itself.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { MESA_WEBGPU, onMesaWebGPU, readTrace, tempDir, traceProblems } from '@dftracer/testing';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { loadTf, releaseWebGPU } from '../index.js';

const MESA = MESA_WEBGPU;
const reason = await onMesaWebGPU(async () => {
  await loadTf({ prefer: ['webgpu'], tf, webgpu: MESA });
  releaseWebGPU();
  await tf.setBackend('cpu');
});

describe.skipIf(reason !== '')('loadTf on WebGPU (Mesa, software renderer)', () => {
  it('gives backend webgpu when named, and the tfjs record names the adapter and says it has no timestamp-query', async () => {
    const file = initializeLog({ enable: true, logFile: join(tempDir(), 'webgpu'), compression: false, disableIo: true }).file!;
    const r = await loadTf({ prefer: ['webgpu'], tf, webgpu: MESA });
    expect([r.backend, r.device, r.package]).toEqual(['webgpu', 'webgpu', '@tensorflow/tfjs']);
    expect(r.info).toMatchObject({ software: true, timestamp_query: false, adapter_device: expect.stringMatching(/llvmpipe/) });
    const y = tf.matMul(tf.ones([8, 8]), tf.ones([8, 8]));
    expect(Array.from(await y.data()).every((v) => v === 8)).toBe(true);
    finalize(); // releases the backend and Dawn
    expect((tf.engine() as unknown as { registry: Record<string, unknown> }).registry.webgpu).toBeUndefined();
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    const cm = t.meta.filter((m) => m.name === 'CM' && m.args.name === 'tfjs').map((m) => JSON.parse(m.args.value));
    expect(cm[0]).toMatchObject({ backend: 'webgpu', device: 'webgpu', software: true, timestamp_query: false, adapter: expect.stringMatching(/llvmpipe.*Mesa.*software renderer, no timestamp-query/) });
    await tf.setBackend('cpu');
  });

  it('passes a software renderer over unless WebGPU is named, saying why', async () => {
    const r = await loadTf({ prefer: ['webgpu', 'cpu'].filter((c) => c !== 'webgpu') as ['cpu'], tf });
    expect(r.backend).toBe('cpu');
    await expect(loadTf({ tf, webgpu: MESA, prefer: ['tfjs-node', 'cpu'] })).resolves.toMatchObject({ backend: 'cpu' });
    const def = await loadTf({ tf, webgpu: MESA });
    expect(def.backend).not.toBe('webgpu');
    expect(def.skipped.find((s) => s.candidate === 'webgpu')?.reason).toMatch(/found only a software renderer \(llvmpipe.*\); name it to use it: prefer: \['webgpu'\]/);
    await tf.setBackend('cpu');
  });

  it('names the option at fault', async () => {
    await expect(loadTf({ webgpu: { featureLevel: 'gl' as never } })).rejects.toThrow(/loadTf: webgpu.featureLevel must be 'core' or 'compatibility'; got "gl"/);
    await expect(loadTf({ webgpu: { importBackend: 'yes' as never } })).rejects.toThrow(/loadTf: webgpu.importBackend must be a function/);
    await expect(loadTf({ tf: 5 as never })).rejects.toThrow(/loadTf: tf must be the @tensorflow\/tfjs namespace/);
  });

  it('lets a traced program exit by itself after finalize (a live Dawn instance would keep it running)', () => {
    const program = `
      import * as tf from '@tensorflow/tfjs';
      import { initializeLog, finalize } from '@dftracer/core';
      import { loadTf } from '@dftracer/tfjs';
      initializeLog({ enable: true, logFile: ${JSON.stringify(join(tempDir(), 'exit'))}, disableIo: true });
      const r = await loadTf({ prefer: ['webgpu'], tf, webgpu: { dawnOptions: ['backend=opengles'], featureLevel: 'compatibility' } });
      const y = tf.add(tf.ones([4]), tf.ones([4]));
      console.log(r.backend, (await y.data()).join(','));
      finalize();
    `;
    const p = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: join(import.meta.dirname, '..', '..'), encoding: 'utf8', timeout: 60_000, env: { ...process.env, EGL_PLATFORM: 'surfaceless' } });
    expect(p.error).toBeUndefined(); // a timeout would mean the process kept running
    expect(p.status).toBe(0);
    expect(p.stdout.trim()).toBe('webgpu 2,2,2,2');
  });
});
