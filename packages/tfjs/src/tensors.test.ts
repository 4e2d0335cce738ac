import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { dtypeBytes, numel, tensorBytes } from './tensors.js';

describe('tensor sizes', () => {
  it('match what the tfjs engine counts for each numeric dtype', async () => {
    await tf.setBackend('cpu');
    for (const dtype of ['float32', 'int32', 'bool'] as const) {
      const before = tf.memory().numBytes;
      const t = tf.zeros([3, 5, 2], dtype);
      expect(tensorBytes(t), dtype).toBe(tf.memory().numBytes - before);
      t.dispose();
    }
  });

  it('count scalars as one element and strings as no fixed size', () => {
    expect(numel([])).toBe(1);
    expect(numel([2, 0, 3])).toBe(0);
    expect(dtypeBytes('string')).toBe(0);
    expect(dtypeBytes('complex64')).toBe(8);
    expect(dtypeBytes('float16')).toBe(2);
  });
});
