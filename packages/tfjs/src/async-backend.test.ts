import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { isAsyncBackend } from './async-backend.js';

describe('isAsyncBackend', () => {
  it('is false on the host backends, for the active one or one named', async () => {
    await tf.setBackend('cpu');
    expect(isAsyncBackend(tf)).toBe(false);
    expect(isAsyncBackend(tf, 'cpu')).toBe(false);
  });

  it('is true for webgl/webgpu by name and for a backend on a GPU device (tfjs-node-gpu on CUDA)', () => {
    const engine = (backendName: string, gpu: boolean) => ({ engine: () => ({ backendName, registry: { [backendName]: { isUsingGpuDevice: gpu } } }) });
    expect(isAsyncBackend(engine('webgpu', false))).toBe(true);
    expect(isAsyncBackend(engine('cpu', false), 'webgl')).toBe(true);
    expect(isAsyncBackend(engine('tensorflow', true))).toBe(true);
    expect(isAsyncBackend(engine('tensorflow', false))).toBe(false);
  });
});
