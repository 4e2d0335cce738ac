import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTf, useTfNamespace } from './index.js';
import { backendFacts, checkDeviceTimeMode, resolveTf, startDeviceTiming, subscribeKernels, syncKernels } from './internal.js';

// Every public function checks its arguments once and names itself and the argument.

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('argument checks', () => {
  it('loadTf', async () => {
    await expect(loadTf(42 as never)).rejects.toThrow(/^loadTf: options must be an object; got number/);
    await expect(loadTf({ prefer: ['tpu' as never] })).rejects.toThrow(/^loadTf: prefer\[0\] is an unknown candidate "tpu"/);
  });

  it('useTfNamespace and resolveTf', () => {
    expect(() => useTfNamespace(42 as never)).toThrow(/^useTfNamespace: tf must be the TensorFlow.js namespace/);
    expect(() => resolveTf(42)).toThrow(/^resolveTf: tf must be the tfjs module/);
    expect(() => resolveTf(42, 'myTool')).toThrow(/^myTool: tf must be the tfjs module/);
    expect(() => resolveTf(tf, 42 as never)).toThrow(/^resolveTf: who must be a non-empty string naming the caller; got 42/);
    expect(resolveTf(tf)).toBe(tf);
  });

  it('subscribeKernels and syncKernels', () => {
    expect(() => subscribeKernels(42 as never, () => {})).toThrow(/^subscribeKernels: tfCore must be the tfjs module .* it lacks getKernelsForBackend/);
    expect(() => subscribeKernels(tf as never, 42 as never)).toThrow(/^subscribeKernels: listener must be a function; got number/);
    expect(() => syncKernels({} as never)).toThrow(/^syncKernels: tfCore must be the tfjs module/);
  });

  it('startDeviceTiming, backendFacts, checkDeviceTimeMode', () => {
    expect(() => startDeviceTiming(42 as never, 'off', 'myTool')).toThrow(/^myTool: tf must be the tfjs module .* it lacks getBackend, backend, engine/);
    expect(() => startDeviceTiming(tf, 'gpu', 'myTool')).toThrow(/^myTool: deviceTime must be 'auto', 'timestamp', 'sync' or 'off'; got "gpu"/);
    expect(() => startDeviceTiming(tf, 'off', 42 as never)).toThrow(/^startDeviceTiming: where must be a non-empty string naming the caller; got 42/);
    expect(() => startDeviceTiming(tf, 'off', 'myTool', 42 as never)).toThrow(/^startDeviceTiming: active must be a function; got number/);
    expect(() => backendFacts({} as never)).toThrow(/^backendFacts: tf must be the tfjs module/);
    expect(backendFacts(tf).asynchronous).toBe(false);
    expect(() => checkDeviceTimeMode(3, 'x')).toThrow(/^x: deviceTime must be/);
    const t = startDeviceTiming(tf, 'off', 'myTool');
    expect(t.decision.mode).toBe('host'); // the cpu backend: a kernel's duration is its device time
    t.release();
  });
});
