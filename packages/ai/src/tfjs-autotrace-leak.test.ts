// tfjsAutoTrace({ tf }) alone — nothing handed over, no kernel hub — starts the tfjs memory counter
// for the tf it traces: an unmodified model.fit whose callback keeps a tensor per batch gets the
// summary's leak verdict at the program's own rate.
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { currentTf } from '@dftracer/tfjs';
import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { tfjsAutoTrace } from './index.js';
import { expectLeakVerdict } from './leak-verdict.test-util.js';

describe('tfjsAutoTrace and the tensor-leak verdict', () => {
  it('model.fit whose onBatchEnd keeps one tensor per batch: +1 tensor / step; the counter stops at teardown', async () => {
    await tf.setBackend('cpu');
    const dir = tempDir();
    initializeLog({ enable: true, logFile: join(dir, 'fit'), countersIntervalMs: 1, disableIo: true, plugins: [tfjsAutoTrace({ tf })] });
    expect(currentTf()).toBeUndefined();
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [8], units: 1 })] });
    model.compile({ optimizer: 'sgd', loss: 'meanSquaredError' });
    const x = tf.randomNormal([640, 8]);
    const y = tf.randomNormal([640, 1]);
    const kept: tf.Tensor[] = [];
    const counts: number[] = [];
    await model.fit(x, y, {
      epochs: 3,
      batchSize: 16,
      callbacks: {
        onBatchEnd: async () => {
          kept.push(tf.scalar(1));
          counts.push(tf.memory().numTensors);
          await new Promise((r) => setTimeout(r, 2)); // a turn of the event loop: the counter samples
        },
      },
    });
    finalize();
    const after = tf.memory().numTensors;
    tf.dispose([...kept, x, y]);
    model.dispose();
    expect(kernelHubStatus().listeners).toBe(0);
    expect(counts).toHaveLength(120);
    const file = traceFiles(dir)[0]!;
    const trace = readTrace(file);
    expect(traceProblems(trace)).toEqual([]);
    expect(await expectLeakVerdict(file, counts)).toMatch(/tensor leak: yes, \+1 tensor \/ step/);
    // torn down with the session: a later session without the plugin samples no tfjs memory
    expect(after).toBeGreaterThan(0);
    const dir2 = tempDir();
    initializeLog({ enable: true, logFile: join(dir2, 'later'), countersIntervalMs: 1, disableIo: true });
    tf.tidy(() => tf.add(tf.scalar(1), 1));
    await new Promise((r) => setTimeout(r, 20));
    finalize();
    expect(readTrace(traceFiles(dir2)[0]!).counters.filter((c) => c.cat === 'tfjs')).toEqual([]);
  });
});
