import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageReadmeProblems } from '@dftracer/testing';
import * as tfjs from './index.js';
import * as internal from './internal.js';

// The package's public face. A program loads tfjs (or hands its own over), tracks tfjs memory and
// waits for device times; the integrations' layer is `@dftracer/tfjs/internal`. A name added to
// either is a promise; keep it deliberate.
const USER_API = [
  'loadTf',
  'useTfNamespace',
  'currentTf',
  'trackTfjsMemory',
  'deviceTimesSettled',
  'DeviceTimeError',
  'releaseWebGPU',
  'registerWasmConvGrad',
  'WASM_TRAINING_KERNELS',
];
const INTEGRATION_API = [
  'resolveTf',
  'LOAD_TF_OPTIONS',
  'isAsyncBackend',
  'DTYPE_BYTES',
  'dtypeBytes',
  'numel',
  'tensorBytes',
  'subscribeKernels',
  'syncKernels',
  'kernelHubStatus',
  'checkDeviceTimeMode',
  'decideDeviceTime',
  'backendFacts',
  'startDeviceTiming',
  'WebGPUTimer',
  'adapterText',
  'describeAdapter',
];

describe('@dftracer/tfjs', () => {
  it('exports the user API, nothing else', () => {
    expect(Object.keys(tfjs).sort()).toEqual([...USER_API].sort());
  });

  it('exports the integrations’ layer from /internal, and nothing of the user API twice', () => {
    expect(Object.keys(internal).sort()).toEqual([...INTEGRATION_API].sort());
  });

  it('serves /internal from its package.json, for import and require', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(pkg.exports)).toEqual(['.', './internal', './package.json']);
    expect(pkg.exports['./internal']).toEqual({
      import: { types: './dist/internal.d.ts', default: './dist/internal.js' },
      require: { types: './dist/internal.d.cts', default: './dist/internal.cjs' },
    });
  });

  it('has READMEs in the one outline, whose links and paths stay in the repository', () => {
    expect(packageReadmeProblems(fileURLToPath(new URL('..', import.meta.url)), '@dftracer/tfjs')).toEqual([]);
  });
});
