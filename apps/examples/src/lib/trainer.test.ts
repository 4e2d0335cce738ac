import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { ai, loadTf } from '@dftracer/ai';
import { finalize, initializeLog } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import { profile, ProfilerActivity, schedule, traceHandler } from '@dftracer/profiler';
import { tempDir } from '@dftracer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeImageFolder } from './images.js';
import { DataLoader, ImageDataset } from './loader.js';
import { buildCnn } from './model.js';
import { Trainer } from './trainer.js';

// The demo's loop with every integration it uses: the tensor count after each step must not grow.
describe('training steps under the demo tracing', () => {
  const dir = tempDir('dft-examples-trainer-');
  beforeAll(async () => {
    initializeLog({ enable: true, dataDir: dir, logFile: join(dir, 'trace') });
    await loadTf();
    writeImageFolder(join(dir, 'train'), 320, 3);
  });
  afterAll(() => finalize());

  it('keep the tfjs tensor count flat, batches and evaluation included', async () => {
    const loader = new DataLoader(new ImageDataset(join(dir, 'train')), 32);
    const model = buildCnn();
    const trainer = new Trainer(model);
    const profiler = profile({
      activities: [ProfilerActivity.CPU],
      schedule: schedule({ skipFirst: 1, wait: 2, warmup: 1, active: 3, repeat: 2 }),
      onTraceReady: traceHandler,
      profileMemory: true,
      recordShapes: true,
    }).start();
    const perStep: number[] = [];
    const perEpoch: number[] = [];
    for (let epoch = 1; epoch <= 3; epoch++) {
      const backend = createBackend({ name: 'cnn', epoch, autograd: true });
      trainer.model = compile(model, { backend });
      ai.update({ epoch });
      let step = 0;
      for await (const batch of loader.batches(epoch)) {
        backend.update({ step: ++step });
        await trainer.trainStep(batch);
        profiler.step();
        perStep.push(tf.memory().numTensors);
      }
      await trainer.evaluate(loader);
      perEpoch.push(tf.memory().numTensors);
    }
    await profiler.stop();
    expect(perStep).toHaveLength(3 * 10);
    // The optimizer's slots exist from the first step on; from there nothing may accumulate.
    expect(new Set(perStep)).toEqual(new Set([perStep[0]]));
    expect(perEpoch).toEqual([perStep[0], perStep[0], perStep[0]]);
  });
});
