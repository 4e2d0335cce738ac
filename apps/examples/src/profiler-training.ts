/**
 * A training loop with dftFn + the profiler (pydftracer's profiler guide, "Training Loop Example"):
 * each step is a dftFn event in cat "training"; the profiler records steps 2 and 3 and traceHandler
 * writes their kernels (forward, backward and optimizer) as PP events into the same trace.
 *
 *   DFTRACER_ENABLE=1 node dist/profiler-training.js
 */
import * as tf from '@tensorflow/tfjs';
import { initializeLog, Profile } from '@dftracer/core';
import { profile, ProfilerActivity, schedule, traceHandler } from '@dftracer/profiler';
import { loadBackend } from './lib/backend.js';

// Initialize logger
const dfLogger = initializeLog('training', null, -1);
await loadBackend();

// Model setup
const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [10], units: 2 })] });
const optimizer = tf.train.sgd(0.01);
const criterion = (labels: tf.Tensor, logits: tf.Tensor) => tf.losses.softmaxCrossEntropy(labels, logits) as tf.Scalar;

// Create DFTracer profile for additional tracing
const dfTest = Profile('training');

const trainingStep = dfTest.log(function trainingStep(inputs: tf.Tensor2D, labels: tf.Tensor2D): number {
  const loss = optimizer.minimize(() => criterion(labels, model.apply(inputs) as tf.Tensor), true)!;
  const value = loss.dataSync()[0]!;
  loss.dispose();
  return value;
});

// Profiler schedule
const profilerSchedule = schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 });

await profile(
  { activities: [ProfilerActivity.CPU], schedule: profilerSchedule, onTraceReady: traceHandler, profileMemory: true },
  async (p) => {
    for (let step = 0; step < 4; step++) {
      const inputs = tf.randomNormal([8, 10]) as tf.Tensor2D;
      const labels = tf.oneHot(tf.randomUniform([8], 0, 2, 'int32') as tf.Tensor1D, 2) as tf.Tensor2D;
      const loss = trainingStep(inputs, labels);
      tf.dispose([inputs, labels]);
      console.log(`step ${step}: loss ${loss.toFixed(4)}`);
      p.step();
    }
  },
);

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
