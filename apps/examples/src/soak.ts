/**
 * A long training loop with every integration on, printing the process's memory as it goes: a small
 * model compiled by dynamo (autograd on), each step inside `ai.compute.step`, a profiler with a
 * repeating schedule writing its cycles through `traceHandler`, counters sampled beside the events,
 * and `dataSync()` every step, so the loop never yields to the event loop. Tracing must keep the
 * process's memory flat however long it runs.
 *
 *   node dist/soak.js [--steps 3000] [--every 100] [--off ai,dynamo,profiler]
 *
 * Prints one JSON line per `--every` steps ({"step","rss","heap","external","tensors"}, bytes) and
 * a last line {"done": true, ...} with the RSS growth from the first fifth of the run to its end.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { ai } from '@dftracer/ai';
import { finalize, initializeLog } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import { profile, schedule, traceHandler } from '@dftracer/profiler';

const { values } = parseArgs({ options: { steps: { type: 'string' }, every: { type: 'string' }, off: { type: 'string' } } });
const STEPS = Number(values.steps ?? 3000);
const EVERY = Number(values.every ?? 100);
const off = new Set((values.off ?? '').split(',').filter((s) => s !== ''));
if (!Number.isInteger(STEPS) || STEPS < 1) throw new TypeError(`--steps must be a positive integer; got ${values.steps}`);
if (!Number.isInteger(EVERY) || EVERY < 1) throw new TypeError(`--every must be a positive integer; got ${values.every}`);

const log = initializeLog({ enable: true, ...(process.env.DFTRACER_LOG_FILE ? {} : { logFile: join(mkdtempSync(join(tmpdir(), 'dftracer-soak-')), 'soak') }) });
await tf.setBackend('cpu');
await tf.ready();

const model = tf.sequential({
  layers: [tf.layers.dense({ inputShape: [16], units: 32, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
});
const net = off.has('dynamo') ? model : compile(model, { backend: createBackend({ name: 'soak', autograd: true }) });
const optimizer = tf.train.sgd(0.01);
const xs = tf.randomNormal([8, 16]);
const ys = tf.oneHot(tf.tensor1d([0, 1, 2, 3, 4, 5, 6, 7], 'int32'), 10);

const trainStep = (): number => {
  const loss = optimizer.minimize(() => tf.losses.softmaxCrossEntropy(ys, net.apply(xs) as tf.Tensor) as tf.Scalar, true)!;
  const v = loss.dataSync()[0]!;
  loss.dispose();
  return v;
};
const step = off.has('ai') ? trainStep : () => ai.compute.step.run(trainStep);
const profiler = off.has('profiler') ? null : profile({ schedule: schedule({ wait: 5, warmup: 1, active: 2, repeat: 0 }), onTraceReady: traceHandler, tf }).start();

const sample = (s: number) => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { step: s, rss: m.rss, heap: m.heapUsed, external: m.external, tensors: tf.memory().numTensors };
};
const from = Math.floor(STEPS / 5);
let first: ReturnType<typeof sample> | null = null;
let loss = 0;
for (let s = 1; s <= STEPS; s++) {
  loss = step();
  profiler?.step();
  if (s % EVERY === 0 || s === STEPS) {
    const m = sample(s);
    if (first === null && s >= from) first = m;
    console.log(JSON.stringify(m));
  }
}
await profiler?.stop();
finalize();
const last = sample(STEPS);
console.log(JSON.stringify({ done: true, trace: log.file, loss, from: first!.step, rssGrowth: last.rss - first!.rss, tensorGrowth: last.tensors - first!.tensors }));
