/**
 * gpu-training's training half (apart from the analysis, so that a bundled run on a GPU machine
 * needs no DuckDB): a CNN trained on the best device loadTf finds, every kernel traced by dynamo and
 * a few steps by the profiler, both with `deviceTime: 'auto'`.
 */
import * as tf from '@tensorflow/tfjs';
import { ai, loadTf } from '@dftracer/ai';
import { finalize, initializeLog } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import { profile, ProfilerActivity, schedule, traceHandler } from '@dftracer/profiler';
import { deviceTimesSettled } from '@dftracer/tfjs';
import { readyForTraining } from './backend.js';

const STEPS = Number(process.env.GPU_STEPS ?? 20);
const BATCH = Number(process.env.GPU_BATCH ?? 64);
const SIZE = 32;

/** Trains and traces; returns the trace file. */
export async function runGpuTraining(): Promise<string> {
  const log = initializeLog({ enable: true, logFile: 'gpu_trace', dataDir: '/tmp/data' });
  // WebGPU named in `prefer`: taken even on a software renderer, so the example runs anywhere.
  const loaded = await loadTf({
    tf,
    prefer: ['tfjs-node-gpu', 'webgpu', 'tfjs-node', 'wasm', 'cpu'],
    webgpu: { importBackend: () => import('@tensorflow/tfjs-backend-webgpu') },
  });
  console.log(`tfjs    ${readyForTraining(loaded)}`);

  const model = tf.sequential({
    name: 'cnn',
    layers: [
      tf.layers.conv2d({ inputShape: [SIZE, SIZE, 3], filters: 16, kernelSize: 3, padding: 'same', activation: 'relu', name: 'conv1' }),
      tf.layers.conv2d({ filters: 32, kernelSize: 3, padding: 'same', activation: 'relu', name: 'conv2' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool' }),
      tf.layers.flatten({ name: 'flatten' }),
      tf.layers.dense({ units: 10, name: 'fc' }),
    ],
  });
  const optimizer = tf.train.adam(1e-3);
  const xs = tf.randomNormal([BATCH, SIZE, SIZE, 3], 0, 1, 'float32', 1);
  const ys = tf.oneHot(tf.tensor1d(Array.from({ length: BATCH }, (_, i) => i % 10), 'int32'), 10);

  const backend = createBackend({ name: 'cnn', deviceTime: 'auto', autograd: true });
  const compiled = compile(model, { backend });
  const profiler = profile({
    tf,
    activities: [ProfilerActivity.CPU, ProfilerActivity.GPU],
    deviceTime: 'auto',
    schedule: schedule({ wait: 5, warmup: 1, active: 2, repeat: 1 }),
    onTraceReady: traceHandler,
  }).start();

  const trainStep = ai.compute.step(async function trainStep() {
    const loss = optimizer.minimize(() => tf.losses.softmaxCrossEntropy(ys, compiled.apply(xs) as tf.Tensor) as tf.Scalar, true)!;
    const value = (await loss.data())[0]!; // WebGPU reads asynchronously (no dataSync in Node)
    loss.dispose();
    return value;
  });

  let loss = 0;
  for (let step = 1; step <= STEPS; step++) {
    backend.update({ step });
    ai.compute.update({ step });
    loss = await trainStep();
    profiler.step();
  }
  await profiler.stop();
  // The last steps' GPU timestamps arrive after the steps: wait for them before closing the trace.
  await deviceTimesSettled();
  tf.dispose([xs, ys]);
  finalize();
  console.log(`trained ${STEPS} steps of ${BATCH} on ${loaded.backend}, final loss ${loss.toFixed(3)}`);
  return log.file!;
}
