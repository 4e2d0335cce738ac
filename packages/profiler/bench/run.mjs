// pnpm bench: what the profiler costs a small CNN's training step on the tfjs cpu backend, during
// wait steps and during active steps (each option on its own), beside tf.profile, in one run.
// Variants run interleaved in rounds; each figure is the best round's CPU time (other jobs on a
// shared machine only add to it), with the spread between rounds beside it.
// Options: --rounds N (default 7), --steps N per variant and round (default 20).
import * as tf from '@tensorflow/tfjs';
import { finalize, initializeLog } from '@dftracer/core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { profile, schedule, traceHandler } from '../dist/index.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, steps: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 7);
const STEPS = Number(values.steps ?? 20);

await tf.setBackend('cpu');
await tf.ready();
const dir = mkdtempSync(join(tmpdir(), 'dftracer-profiler-bench-'));
initializeLog({ enable: true, logFile: join(dir, 'bench'), dataDir: join(dir, 'none') });

// conv(8,3×3,relu) → maxPool 2 → conv(16,3×3,relu) → flatten → dense(32,relu) → dense(10,softmax), batch 4 of 8×8×3:
// small, so that the per-kernel cost shows (a bigger model hides it behind the cpu backend's convolutions).
const model = tf.sequential({
  layers: [
    tf.layers.conv2d({ inputShape: [8, 8, 3], filters: 8, kernelSize: 3, activation: 'relu', padding: 'same' }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.conv2d({ filters: 16, kernelSize: 3, activation: 'relu' }),
    tf.layers.flatten(),
    tf.layers.dense({ units: 32, activation: 'relu' }),
    tf.layers.dense({ units: 10, activation: 'softmax' }),
  ],
});
const opt = tf.train.sgd(0.01);
const x = tf.randomNormal([4, 8, 8, 3]);
const y = tf.oneHot(tf.tensor1d([0, 1, 2, 3], 'int32'), 10);
const trainStep = () => tf.tidy(() => void opt.minimize(() => tf.losses.softmaxCrossEntropy(y, model.predict(x))));

const kernelsPerStep = (await tf.profile(trainStep)).kernels.filter((k) => tf.getKernel(k.name, 'cpu') !== undefined).length;

// Process CPU time, not wall time: the machine is shared, and a step is single-threaded JS.
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU ms per step over STEPS steps under a profiler made by `make` (none: unprofiled). */
function timeSteps(make) {
  const p = make?.();
  p?.start();
  const t0 = cpuMs();
  for (let i = 0; i < STEPS; i++) {
    trainStep();
    p?.step();
  }
  const ms = (cpuMs() - t0) / STEPS;
  // Each run's one cycle is handed over at its last step(), inside the timed loop.
  return { ms, stop: p?.stop() };
}

async function timeTfProfile() {
  const t0 = cpuMs();
  for (let i = 0; i < STEPS; i++) await tf.profile(trainStep);
  return (cpuMs() - t0) / STEPS;
}

const never = schedule({ wait: 1_000_000, warmup: 0, active: 1 });
const active = schedule({ wait: 0, warmup: 0, active: STEPS }); // one cycle per variant run, handed over at its last step
const variants = [
  ['unprofiled', null],
  ['profiler, wait steps', () => profile({ tf, schedule: never })],
  ['profiler, active steps', () => profile({ tf, schedule: active })],
  ['active + recordShapes + profileMemory', () => profile({ tf, schedule: active, recordShapes: true, profileMemory: true })],
  ['active + withStack', () => profile({ tf, schedule: active, withStack: true })],
  ['active + traceHandler (PP events written)', () => profile({ tf, schedule: active, onTraceReady: traceHandler })],
];

const all = [...variants.map(([name, make]) => [name, () => timeSteps(make)]), ['tf.profile', async () => ({ ms: await timeTfProfile() })]];
for (const [, run] of all) await (await run()).stop; // warm-up: every path compiled before timing
const results = new Map(all.map(([n]) => [n, []]));
for (let r = 0; r < ROUNDS; r++) {
  // A different variant goes first each round, so drift in the machine's load spreads evenly.
  for (let k = 0; k < all.length; k++) {
    const [name, run] = all[(k + r) % all.length];
    const { ms, stop } = await run();
    await stop;
    results.get(name).push(ms);
  }
  process.stderr.write(`round ${r + 1}/${ROUNDS}\n`);
}
// Per kernel, where the train step's noise hides it: tf.add on two [4] tensors, in CPU µs per op.
const a4 = tf.ones([4]);
const OPS = 20_000;
function addOps(make) {
  const p = make?.();
  p?.start();
  const t0 = cpuMs();
  for (let i = 0; i < OPS; i++) tf.add(a4, a4).dispose();
  const us = ((cpuMs() - t0) * 1000) / OPS;
  return { us, stop: p?.stop() };
}
async function addOpsTfProfile() {
  const t0 = cpuMs();
  await tf.profile(() => {
    for (let i = 0; i < OPS; i++) tf.add(a4, a4).dispose();
  });
  return { us: ((cpuMs() - t0) * 1000) / OPS };
}
const opVariants = [
  ['unprofiled', () => addOps(null)],
  ['profiler, wait steps', () => addOps(() => profile({ tf, schedule: never }))],
  ['profiler, active steps', () => addOps(() => profile({ tf }))],
  ['active + recordShapes + profileMemory', () => addOps(() => profile({ tf, recordShapes: true, profileMemory: true }))],
  ['active + withStack', () => addOps(() => profile({ tf, withStack: true }))],
  ['tf.profile', addOpsTfProfile],
];
const opResults = new Map(opVariants.map(([n]) => [n, []]));
for (const [, run] of opVariants) await (await run()).stop;
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < opVariants.length; k++) {
    const [name, run] = opVariants[(k + r) % opVariants.length];
    const { us, stop } = await run();
    await stop; // the cycle's hand-over (events built, stacks formatted) is outside the timed loop here
    opResults.get(name).push(us);
  }
}
a4.dispose();
finalize();

const base = Math.min(...results.get('unprofiled'));
const spread = (a) => `${((100 * (Math.max(...a) - Math.min(...a))) / Math.min(...a)).toFixed(0)} %`;
const rows = [['', 'CPU ms/step (best round)', 'vs unprofiled', 'µs per kernel', 'round spread', 'goal']];
const goals = { 'profiler, wait steps': 'within noise of unprofiled' };
const best = (a) => Math.min(...a);
for (const [name, list] of results) {
  const m = best(list);
  const perKernel = name === 'unprofiled' ? '–' : (((m - base) * 1000) / kernelsPerStep).toFixed(2);
  rows.push([name, m.toFixed(2), name === 'unprofiled' ? '1.00×' : `${(m / base).toFixed(3)}×`, perKernel, spread(list), goals[name] ?? '']);
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
console.log(`\nsmall CNN train step, tfjs ${tf.version.tfjs} cpu backend, ${kernelsPerStep} kernels/step, ${ROUNDS} rounds × ${STEPS} steps, node ${process.version}`);
for (const r of rows) console.log(r.map((v, c) => (c === 0 ? String(v).padEnd(widths[c]) : String(v).padStart(widths[c]))).join('  '));
const opBase = Math.min(...opResults.get('unprofiled'));
console.log(`\none kernel: tf.add on two [4] tensors, ${OPS.toLocaleString('en-US')} ops × ${ROUNDS} rounds, CPU µs per op`);
const opRows = [['', 'µs/op (best round)', 'added µs/op', 'round spread']];
for (const [name, list] of opResults) {
  const m = best(list);
  opRows.push([name, m.toFixed(2), name === 'unprofiled' ? '–' : (m - opBase).toFixed(2), spread(list)]);
}
const opWidths = opRows[0].map((_, c) => Math.max(...opRows.map((r) => String(r[c]).length)));
for (const r of opRows) console.log(r.map((v, c) => (c === 0 ? String(v).padEnd(opWidths[c]) : String(v).padStart(opWidths[c]))).join('  '));
model.dispose();
tf.dispose([x, y]);
opt.dispose();
