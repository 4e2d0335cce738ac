/**
 * The demo's training half: a small CNN trained with TensorFlow.js on an image dataset read from
 * real files, traced into ONE DFTracer file (file I/O, data loading, training phases, every tfjs
 * kernel through a dynamo backend, profiled steps through the profiler). Apart from the analysis
 * (demo.ts), so that a bundled run on a GPU machine needs no DuckDB.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { ai, loadTf } from '@dftracer/ai';
import { finalize, initializeLog } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import { profile, ProfilerActivity, schedule, traceHandler } from '@dftracer/profiler';
import { deviceTimesSettled } from '@dftracer/tfjs';
import { readyForTraining } from './backend.js';
import { writeImageFolder } from './images.js';
import { DataLoader, ImageDataset } from './loader.js';
import { buildCnn } from './model.js';
import { Progress } from './progress.js';
import { Trainer } from './trainer.js';

const EPOCHS = Number(process.env.DEMO_EPOCHS ?? 2);
const TRAIN = 2048;
const TEST = 512;
const BATCH = 32;

/** Trains and traces; returns the trace file and when it started (performance.now()). */
export async function runDemoTraining(): Promise<{ file: string; started: number }> {
  const started = performance.now();
  const root = mkdtempSync(join(tmpdir(), 'dftracer-demo-'));
  const images = join(root, 'images');
  // Tracing is the point of the demo, so it is on in code; the DFTRACER_* variables still apply.
  // Counters every 20 ms: the tensor-leak verdict needs about 30 samples an epoch, and an epoch here lasts about a second.
  const log = initializeLog({
    enable: true,
    dataDir: images,
    ...(process.env.DFTRACER_LOG_FILE ? {} : { logFile: join(root, 'demo') }),
    ...(process.env.DFTRACER_COUNTERS_INTERVAL_MS ? {} : { countersIntervalMs: 20 }),
  });
  if (!log.file) throw new Error('tracing did not start (see the warning above)');
  console.log(`trace   ${log.file}\ndataset ${images}`);

  // The best TensorFlow.js present: CUDA, a GPU through WebGPU, native, wasm, then cpu (a CM record
  // says which). The namespace and the WebGPU backend are handed over so that a bundled demo runs too.
  const loaded = await loadTf({ tf, webgpu: { importBackend: () => import('@tensorflow/tfjs-backend-webgpu') } });
  console.log(`tfjs    ${readyForTraining(loaded)}`);

  ai.data.derive('generate').run(() => {
    writeImageFolder(join(images, 'train'), TRAIN, 7);
    writeImageFolder(join(images, 'test'), TEST, 8);
  });
  const train = new DataLoader(new ImageDataset(join(images, 'train')), BATCH);
  const test = new DataLoader(new ImageDataset(join(images, 'test')), BATCH, false);
  const model = buildCnn();
  const trainer = new Trainer(model);

  console.log(`\ntraining a ${model.countParams().toLocaleString('en')}-parameter CNN on ${TRAIN} images (${TEST} held out), ${EPOCHS} epochs of ${train.steps} batches`);
  // The profiler records a few steps in each cycle; traceHandler writes their kernels as PP events.
  const profiler = profile({
    tf,
    activities: [ProfilerActivity.CPU, ProfilerActivity.GPU],
    schedule: schedule({ skipFirst: 8, wait: 20, warmup: 2, active: 4, repeat: 2 }),
    onTraceReady: traceHandler,
    profileMemory: true,
    recordShapes: true,
  }).start();
  await ai.pipeline.train.run(async () => {
    for (let epoch = 1; epoch <= EPOCHS; epoch++) {
      const progress = new Progress(`epoch ${epoch}/${EPOCHS}`, train.steps);
      // A dynamo backend per epoch: every kernel of the model, forward and backward, with epoch and step.
      const backend = createBackend({ name: 'cnn', epoch, autograd: true });
      trainer.model = compile(model, { backend });
      ai.update({ epoch }); // every ai event below carries the epoch
      await ai.pipeline.epoch.run(async () => {
        let step = 0;
        let loss = 0;
        for await (const batch of ai.dataloader.fetch.iter(train.batches(epoch))) {
          ai.compute.update({ step: ++step });
          backend.update({ step });
          loss = await trainer.trainStep(batch);
          profiler.step();
          progress.update(step, `loss ${loss.toFixed(3)}`);
        }
        const acc = await trainer.evaluate(test);
        progress.done(`loss ${loss.toFixed(3)}, held-out accuracy ${(acc * 100).toFixed(1)} %`);
      });
    }
  });
  await profiler.stop();
  await deviceTimesSettled(); // on a GPU, the last kernels' device times arrive after their steps
  finalize();
  console.log(`\ntrained in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { file: log.file, started };
}
