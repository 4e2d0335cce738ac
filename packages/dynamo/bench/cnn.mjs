// One backend's case for `pnpm bench`: a small CNN's forward pass and train step, untraced, traced
// by dynamo, and under tf.profile, in alternating rounds in this process. Prints one JSON line.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { finalize, getTracer, initializeLog } from '@dftracer/core';
import { subscribeKernels } from '@dftracer/tfjs/internal';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compile, createBackend } from '../dist/index.js';

const backendName = process.argv[2] ?? 'cpu';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

await tf.setBackend(backendName);
await tf.ready();

const model = tf.sequential({
  layers: [
    tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 8, kernelSize: 3, activation: 'relu' }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.conv2d({ filters: 16, kernelSize: 3, activation: 'relu' }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.flatten(),
    tf.layers.dense({ units: 32, activation: 'relu' }),
    tf.layers.dense({ units: 10 }),
  ],
});
// tfjs-backend-wasm has no Conv2DBackpropFilter: on wasm the step trains the dense head, convs frozen.
const frozen = backendName === 'wasm';
if (frozen) for (const l of model.layers) if (l.getClassName() === 'Conv2D') l.trainable = false;
const varList = model.trainableWeights.map((w) => w.read());
const optimizer = tf.train.sgd(1e-3);
const BATCH = 4;
const x = tf.randomNormal([BATCH, 28, 28, 1], 0, 1, 'float32', 1);
const labels = tf.oneHot(tf.tensor1d([0, 1, 2, 3], 'int32'), 10);
const backend = createBackend({ name: 'cnn' });
const compiled = compile(model, { backend });

// The read values stay inside tidy: a typed array returned from tidy is walked element by element
// by tfjs (looking for tensors), and that walk deoptimizes and reoptimizes over and over.
const forward = (m) => () =>
  tf.tidy(() => {
    m.predict(x).dataSync();
  });
const trainStep = (m) => () => {
  const cost = optimizer.minimize(() => tf.losses.softmaxCrossEntropy(labels, m.apply(x, { training: true })), true, varList);
  cost.dataSync();
  cost.dispose();
};
const profiled = (f) => async () => {
  const p = await tf.profile(() => {
    f();
    return tf.scalar(0);
  });
  p.result.dispose();
};

/**
 * The floor under dynamo: the uncompiled model with a bare kernel listener that writes each kernel
 * as one event through the core's fastest path (emitShaped, fixed string args): the hook and the
 * core's price of the kernels' events, without dynamo's own work (types, layers, the call span).
 */
const floorListener = () => {
  const tracer = getTracer();
  const shapes = new Map();
  return (c) => {
    let shape = shapes.get(c.kernelName);
    if (shape === undefined) shapes.set(c.kernelName, (shape = tracer.shape(`function.${c.kernelName}`, 'dynamo', ['grad_enabled', 'op', 'inputs', 'outputs'])));
    tracer.emitShaped(shape, c.start, c.end - c.start, c.gradDepth > 0 || c.backward ? 1 : 0, 'call_function', 'float32[4,28,28,1]', 'float32[4,26,26,8]');
  };
};

// The main thread's CPU time (Linux schedstat), not wall time: on a shared machine wall time is
// mostly other processes' scheduling. Elsewhere, wall time.
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const mainCpuMs = existsSync(schedstat) ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : () => performance.now();

async function time(f, iters) {
  const t0 = mainCpuMs();
  for (let i = 0; i < iters; i++) await f();
  return (mainCpuMs() - t0) / iters;
}

const dir = mkdtempSync(join(tmpdir(), 'dft-dynamo-bench-'));
let traceNo = 0;
const settle = () => new Promise((r) => setTimeout(r, 300));

// Iterations per timed window: each window lasts ~0.2–0.5 s on this kind of machine (shorter ones
// move by tens of percent with the machine's other load).
const wasm = backendName === 'wasm';
const cases = {
  forward: { plain: forward(model), dynamo: forward(compiled), iters: Number(process.env.BENCH_ITERS ?? (wasm ? 1000 : 40)) },
  train: { plain: trainStep(model), dynamo: trainStep(compiled), iters: Number(process.env.BENCH_ITERS ?? (wasm ? 300 : 3)) },
};
const out = { backend: backendName, rounds: ROUNDS, frozen, batch: BATCH, clock: existsSync(schedstat) ? 'main-thread CPU' : 'wall' };
for (const [name, c] of Object.entries(cases)) {
  // Warm up every path (JIT, graph capture, wasm kernels) before timing.
  for (let i = 0; i < 3; i++) c.plain();
  initializeLog({ enable: true, logFile: join(dir, `warm${name}`), dataDir: join(dir, 'none') });
  c.dynamo();
  finalize();
  await profiled(c.plain)();
  const t = { plain: [], dynamo: [], hooked: [], floor: [], profile: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Traced windows: a tracer per round, its writer thread and dynamo's hooks warmed up by compiled
    // calls off the clock. Then, after finalize (hooks out, trace closed), the untraced and
    // tf.profile windows of the same round.
    initializeLog({ enable: true, logFile: join(dir, `cnn${traceNo++}`), dataDir: join(dir, 'none') });
    for (let i = 0; i < Math.min(c.iters, 20); i++) c.dynamo();
    await settle();
    t.dynamo.push(await time(c.dynamo, c.iters));
    // The uncompiled model while dynamo's hooks are in: what the wrappers cost outside compiled calls.
    // Each window starts once the writer thread has written the last one's events: a writer
    // still compressing them would run beside the window and count in it.
    await settle();
    t.hooked.push(await time(c.plain, c.iters));
    const off = subscribeKernels(tf, floorListener());
    t.floor.push(await time(c.plain, c.iters));
    off();
    finalize();
    await settle();
    t.plain.push(await time(c.plain, c.iters));
    t.profile.push(await time(profiled(c.plain), c.iters));
  }
  const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  // Per-round ratios cancel the machine's drift between rounds; their median is the figure.
  const ratio = (k) => median(t[k].map((v, i) => v / t.plain[i]));
  out[name] = { iters: c.iters, plainMs: median(t.plain), dynamo: ratio('dynamo'), hooked: ratio('hooked'), floor: ratio('floor'), profile: ratio('profile') };
}
const fwdGraph = backend.graphs.find((g) => g.fn.endsWith('.predict'));
out.kernelsPerForward = fwdGraph?.select('call_function').length ?? 0;
// Events of one traced forward pass: its kernels, its layers and the call itself.
out.eventsPerForward = out.kernelsPerForward + (fwdGraph?.select('call_module').length ?? 0) + 1;
out.kernelsPerTrainForward = backend.graphs.find((g) => g.fn.endsWith('.apply'))?.select('call_function').length ?? 0;
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(out));
