/**
 * A real tfjs training program (cpu backend) for the leak-verdict tests, run as its own process:
 * 3 epochs of 40 steps of a small dense model, each step a traced `compute` `step` event (epoch and
 * step args) with a `forward` event inside it (a sample there sees the step's temporaries), and the
 * tfjs memory counter sampled every 2 ms (trackTfjsMemory, as the kernel hub starts it).
 *
 *   LEAK_PROGRAM=steady|leak-step|leak-10-steps|one-off|warm-up|prefetch  LEAK_TRACE=<log file prefix>
 *
 * Prints one JSON line: what the program did (tensors kept, steps, the loader's deepest queue).
 */
import * as tf from '@tensorflow/tfjs';
import { dftFn, finalize, initializeLog } from '@dftracer/core';
import { trackTfjsMemory } from '@dftracer/tfjs';

const EPOCHS = 3;
const STEPS = 40;
const BATCH = 32;
/**
 * Wide enough that a step takes several sampling intervals (about 5 ms on an idle 2-core machine):
 * every step then holds samples, however the machine's load moves the steps in time. With a step
 * shorter than the interval, samples fell between steps, and a run could get too few to tell.
 */
const HIDDEN = 128;
const program = process.env.LEAK_PROGRAM;
if (!['steady', 'leak-step', 'leak-10-steps', 'one-off', 'warm-up', 'prefetch'].includes(program ?? '')) throw new Error(`LEAK_PROGRAM: unknown program ${program}`);

await tf.setBackend('cpu');
initializeLog({ enable: true, logFile: process.env.LEAK_TRACE, countersIntervalMs: 2, disableIo: true });
const untrack = trackTfjsMemory(tf);
const compute = dftFn('compute');

const w1 = tf.variable(tf.randomNormal([64, HIDDEN], 0, 0.1));
const w2 = tf.variable(tf.randomNormal([HIDDEN, 8], 0, 0.1));
const opt = tf.train.adam(0.01); // its slots appear in the first step: a warm-up every program has
const kept = [];
let deepest = 0;

const makeBatch = () => tf.tidy(() => ({ xs: tf.randomNormal([BATCH, 64]), ys: tf.randomNormal([BATCH, 8]) }));

function trainStep(batch, epoch, step) {
  compute.run(
    () => {
      opt.minimize(() => compute.run(() => tf.losses.meanSquaredError(batch.ys, tf.matMul(tf.relu(tf.matMul(batch.xs, w1)), w2)), {}), false);
      tf.dispose([batch.xs, batch.ys]);
      const n = (epoch - 1) * STEPS + step;
      if (program === 'leak-step') kept.push(tf.add(w2, 1)); // made outside tidy, never disposed
      if (program === 'leak-10-steps' && n % 10 === 0) kept.push(tf.add(w2, 1));
      if (program === 'warm-up' && n <= 20) kept.push(tf.add(w2, 1)); // a cache filled by the first 20 steps
      if (program === 'one-off' && epoch === 2 && step === 20) kept.push(tf.zeros([(5 << 20) / 4])); // 5 MiB, kept to the end
    },
    { epoch, step },
  );
}

/**
 * The prefetching loader: batches arrive at a steady pace (one per 3 ms, as reads complete), up to
 * 16 ahead, 40 per epoch; the queue stays short while steps are fast and fills when they slow down.
 */
async function* prefetched() {
  const queue = [];
  const start = performance.now();
  let made = 0;
  let wake = null;
  const arrive = () => {
    const due = Math.min(STEPS, Math.floor((performance.now() - start) / 3) + 1);
    while (made < due && queue.length < 16) {
      queue.push(makeBatch());
      made++;
    }
    deepest = Math.max(deepest, queue.length);
    if (queue.length > 0) wake?.();
  };
  const timer = setInterval(arrive, 1);
  try {
    for (let i = 0; i < STEPS; i++) {
      while (queue.length === 0) await new Promise((r) => (wake = r));
      wake = null;
      yield queue.shift();
      await new Promise((r) => setImmediate(r)); // the event loop turns between steps
    }
  } finally {
    clearInterval(timer);
  }
}

async function* direct() {
  for (let i = 0; i < STEPS; i++) {
    yield makeBatch();
    await new Promise((r) => setImmediate(r)); // the event loop turns between steps
  }
}

for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  let step = 0;
  for await (const batch of program === 'prefetch' ? prefetched() : direct()) trainStep(batch, epoch, ++step);
}
finalize();
untrack();
console.log(JSON.stringify({ program, kept: kept.length, steps: EPOCHS * STEPS, deepest }));
