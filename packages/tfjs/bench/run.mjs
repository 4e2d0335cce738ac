// `pnpm bench` for @dftracer/tfjs: the cost of counters (sys + the tfjs memory counter) at the
// default interval on a real tfjs training step, counters on vs off, alternating in one process.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(join(here, '../dist/index.js'))) throw new Error('build first: pnpm --filter @dftracer/tfjs... build');
const tf = await import('@tensorflow/tfjs');
const { initializeLog, finalize, dftFn } = await import('@dftracer/core');
const { subscribeKernels } = await import('../dist/index.js');

await tf.setBackend('cpu');
const dir = mkdtempSync(join(tmpdir(), 'dft-tfjs-bench-'));
const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [784], units: 128, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })] });
const opt = tf.train.adam(1e-3);
const x = tf.randomNormal([32, 784]);
const y = tf.oneHot(tf.tensor1d(Array.from({ length: 32 }, (_, i) => i % 10), 'int32'), 10);
const train = dftFn('bench');
const step = () => opt.minimize(() => tf.losses.softmaxCrossEntropy(y, model.predict(x)));

const ROUNDS = 10;
const ROUND_MS = 1500;
let n = 0;
/** One tracing session of ROUND_MS of training steps; ms of process CPU and wall per step. */
function session(on) {
  initializeLog({ enable: true, logFile: join(dir, `s${n++}`), countersIntervalMs: on ? undefined : 0, disableIo: true });
  const unsubscribe = subscribeKernels(tf, () => {}); // as dynamo/profiler do: the tfjs memory counter runs
  let steps = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < ROUND_MS) train.run(step, { step: ++steps });
  const wall = (performance.now() - t0) / steps;
  const c = process.cpuUsage(c0);
  unsubscribe();
  finalize();
  return { wall, cpu: (c.user + c.system) / 1000 / steps };
}
session(true);
session(false);
const wall = [];
const cpu = [];
const stepMs = [];
for (let r = 0; r < ROUNDS; r++) {
  const res = {};
  for (const on of r & 1 ? [false, true] : [true, false]) res[on] = session(on);
  wall.push(res.true.wall / res.false.wall);
  cpu.push(res.true.cpu / res.false.cpu);
  stepMs.push(res.false.wall);
}
rmSync(dir, { recursive: true, force: true });
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
console.log(`\n@dftracer/tfjs bench (node ${process.version}, tfjs 4.22 cpu backend, MLP 784-128-10 batch 32, adam)\n`);
console.log('| measure | value | goal | note |\n|---|---|---|---|');
console.log(`| counters at the default interval (100 ms), training step: on ÷ off, wall | ${pct(med(wall))} | within noise | step ${med(stepMs).toFixed(2)} ms; ${ROUNDS} rounds of ${ROUND_MS / 1000} s sessions alternating; round-to-round spread ${((Math.max(...wall) - Math.min(...wall)) * 100).toFixed(1)} % |`);
console.log(`| the same, process CPU per step | ${pct(med(cpu))} | within noise | |`);
