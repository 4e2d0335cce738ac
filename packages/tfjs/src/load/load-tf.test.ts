// loadTf's order, its option errors, its report, and the namespace it hands over.
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { readTrace, tempDir, type Trace } from '@dftracer/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { currentTf, loadTf, WASM_TRAINING_KERNELS } from '../index.js';
import { isAsyncBackend, resolveTf } from '../internal.js';
import { report } from './report.js';

let file = '';
const checks: ((t: Trace) => void)[] = [];
const cmRecords = (t: Trace) => t.meta.filter((m) => m.name === 'CM' && m.args.name === 'tfjs').map((m) => JSON.parse(m.args.value));

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
    expect(r.skipped.map((s) => s.candidate)).toEqual(['tfjs-node-gpu', 'webgpu', 'tfjs-node']);
    for (const s of r.skipped) expect(s.reason.length).toBeGreaterThan(0);
    expect(isAsyncBackend(r.tf)).toBe(false);
    expect(r.addedKernels).toEqual([...WASM_TRAINING_KERNELS]);
    expect((await loadTf()).addedKernels).toEqual([]); // already there
    checks.push((t) => {
      const cm = cmRecords(t);
      expect(cm[0]).toMatchObject({ package: '@tensorflow/tfjs', backend: 'wasm', device: 'wasm', version: '4.22.0', added_kernels: [...WASM_TRAINING_KERNELS] });
      expect(cm[1]).toMatchObject({ backend: 'wasm', added_kernels: [] });
    });
  });

  it('hands the namespace to the integrations: currentTf and resolveTf return it', async () => {
    const r = await loadTf({ prefer: ['cpu'] });
    expect(currentTf()).toBe(r.tf);
    expect(resolveTf(undefined, 'test')).toBe(r.tf);
    const passed = { engine: () => r.tf.engine() };
    expect(resolveTf(passed, 'test')).toBe(passed); // what a caller passes wins
    expect(() => resolveTf({}, 'profile')).toThrow(/^profile: tf must be the tfjs module/);
  });

  it('falls back along `prefer`', async () => {
    const cpu = await loadTf({ prefer: ['cpu'] });
    expect([cpu.backend, cpu.device, cpu.tf.getBackend(), cpu.skipped.length]).toEqual(['cpu', 'cpu', 'cpu', 0]);
    const r = await loadTf({ prefer: ['tfjs-node-gpu', 'wasm'] });
    expect([r.backend, r.skipped.map((s) => s.package)]).toEqual(['wasm', ['@tensorflow/tfjs-node-gpu']]);
  });

  it('rejects bad options, naming the argument, before loading anything', async () => {
    await expect(loadTf({ prefer: ['tpu' as never] })).rejects.toThrow(/^loadTf: prefer\[0\] is an unknown candidate "tpu"; expected 'tfjs-node-gpu' \| 'webgpu' \| 'tfjs-node' \| 'wasm' \| 'cpu'/);
    await expect(loadTf({ prefer: ['wasm', 'cpu', 'wasm'] })).rejects.toThrow(/^loadTf: prefer\[2\] repeats "wasm"/);
    await expect(loadTf({ prefer: [] })).rejects.toThrow(/^loadTf: prefer must be a non-empty array/);
    await expect(loadTf({ prefer: 'wasm' as never })).rejects.toThrow(/^loadTf: prefer must be a non-empty array/);
    await expect(loadTf({ from: 3 as never })).rejects.toThrow(/^loadTf: from must be a path or file URL string/);
    await expect(loadTf({ wasmTraining: 'yes' as never })).rejects.toThrow(/^loadTf: wasmTraining must be a boolean/);
    await expect(loadTf({ sync: true } as never)).rejects.toThrow(/^loadTf: unknown option "sync"; known options: prefer, from, wasmTraining/);
    await expect(loadTf(null as never)).rejects.toThrow(/^loadTf: options must be an object; got null/);
    await expect(loadTf({ prefered: ['cpu'] } as never)).rejects.toThrow(/^loadTf: unknown option "prefered" \(did you mean prefer\?\)/);
    await expect(loadTf({ prefer: ['cpu'], webgpu: { featurelevel: 'compatibility' } as never })).rejects.toThrow(
      /^loadTf: webgpu: unknown option "featurelevel" \(did you mean featureLevel\?\); known options: dawnOptions, featureLevel, powerPreference, importBackend$/,
    );
  });

  it('says it cannot load anything with every reason', async () => {
    await expect(loadTf({ prefer: ['tfjs-node-gpu', 'tfjs-node'] })).rejects.toThrow(/^loadTf: no TensorFlow.js could be loaded \(tfjs-node-gpu: .+; tfjs-node: .+\); install @tensorflow\/tfjs$/);
  });
});

describe('report', () => {
  it("writes a candidate's extra facts into the tfjs CM record and the INFO line", async () => {
    const { tf } = await loadTf({ prefer: ['cpu'] });
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      report({ tf, package: '@tensorflow/tfjs', backend: 'cpu', device: 'cpu', skipped: [], addedKernels: [], info: { adapter: 'Test Adapter 1', limits_ok: true } });
    } finally {
      err.mockRestore();
    }
    checks.push((t) => {
      expect(cmRecords(t).find((c) => c.adapter !== undefined)).toMatchObject({ backend: 'cpu', device: 'cpu', adapter: 'Test Adapter 1', limits_ok: true });
    });
  });
});

describe('a candidate named in prefer that cannot load', () => {
  it('is said on stderr with its reason, and not when the default order passes over it', async () => {
    const { spawnSync } = await import('node:child_process');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tempDir } = await import('@dftracer/testing');
    const dist = new URL('../../dist/index.js', import.meta.url).href;
    const dir = tempDir();
    const run = (prefer: string) => {
      writeFileSync(join(dir, 'app.mjs'), `const { loadTf } = await import(${JSON.stringify(dist)});\nconst l = await loadTf(${prefer});\nconsole.log(l.backend);\n`);
      return spawnSync(process.execPath, ['app.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '0' } });
    };
    // tfjs-node-gpu is not installed here (not a dependency of this package)
    const named = run(`{ prefer: ['tfjs-node-gpu', 'cpu'] }`);
    expect(named.stdout.trim()).toBe('cpu');
    expect(named.stderr.split('\n').filter((l) => l.includes('loadTf'))).toEqual([
      expect.stringMatching(/^dftracer: WARN: loadTf: tfjs-node-gpu, named in prefer, could not be used \(.*not installed.*\); loaded cpu instead$/),
    ]);
    const byDefault = run('');
    expect(byDefault.status).toBe(0);
    expect(byDefault.stderr).not.toContain('loadTf');
  });
});
