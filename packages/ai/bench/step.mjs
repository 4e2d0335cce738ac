// One backend per process: a real tfjs training step, untraced and with every ai tracer on, in
// alternating rounds (ABBA) so both meet the same moments of the machine. Prints one JSON line.
// Usage: node step.mjs <wasm|cpu> <mlp|cnn> <outDir>
import { join } from 'node:path';
import { MIN_STRETCH_MS, gcTotalMs, mainNs, processUs } from './cpu-clock.mjs';

const [, , backend, kind, outDir] = process.argv;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const BATCH = 32;

const { initializeLog, finalize } = await import('@dftracer/core');
const { ai, loadTf } = await import(new URL('../dist/index.js', import.meta.url).href);
initializeLog({ enable: true, logFile: join(outDir, `bench-${backend}-${kind}`), dataDir: join(outDir, 'data') });
const { tf } = await loadTf({ prefer: [backend] });
if (process.env.BENCH_NOHOOKS) { ai.compute.instrument.setHooks(undefined); ai.device.transfer.instrument.setHooks(undefined); }

const [side, channels, classes] = kind === 'cnn' ? [16, 1, 4] : [28, 1, 10];
const model =
  kind === 'cnn'
    ? tf.sequential({ layers: [tf.layers.conv2d({ inputShape: [side, side, channels], filters: 8, kernelSize: 3, activation: 'relu' }), tf.layers.maxPooling2d({ poolSize: 2 }), tf.layers.flatten(), tf.layers.dense({ units: classes, activation: 'softmax' })] })
    : tf.sequential({ layers: [tf.layers.flatten({ inputShape: [side, side, channels] }), tf.layers.dense({ units: 128, activation: 'relu' }), tf.layers.dense({ units: classes, activation: 'softmax' })] });
const optimizer = tf.train.sgd(0.01);
const sample = side * side * channels;

// The program's own functions.
// A dataset in memory: an item is a view of one sample (a loader's decode would come on top).
const DATA = Float32Array.from({ length: 256 * sample }, (_, k) => (k % 17) / 17);
const item = (i) => DATA.subarray((i % 256) * sample, ((i % 256) + 1) * sample);
const collate = (items) => {
  const flat = new Float32Array(items.length * sample);
  items.forEach((a, k) => flat.set(a, k * sample));
  return flat;
};
const transfer = (x, n) => ({ xs: tf.tensor4d(x, [n, side, side, channels]), ys: tf.oneHot(tf.tensor1d(Array.from({ length: n }, (_, i) => i % classes), 'int32'), classes) });
const forward = (xs) => model.apply(xs);
const backward = (f) => tf.variableGrads(f);
const step = (xs, ys, fw, bw) =>
  tf.tidy(() => {
    const { value, grads } = bw(() => tf.losses.softmaxCrossEntropy(ys, fw(xs)));
    optimizer.applyGradients(grads);
    return value.dataSync()[0];
  });
/** Batches of BATCH items made by `load` and joined by `join`. */
function* batches(n, load, join) {
  for (let b = 0; b < n; b++) yield join(Array.from({ length: BATCH }, (_, i) => load(b * BATCH + i)));
}

// The same program decorated with every kind of tracer.
const tItem = ai.data.item(item);
const tCollate = ai.data.preprocess.derive('collate')(collate);
const tTransfer = ai.device.transfer(transfer);
const tForward = ai.compute.forward(forward);
const tBackward = ai.compute.backward(backward);
const tStep = ai.compute.step(step);

function untraced() {
  let loss = 0;
  for (const x of batches(STEPS, item, collate)) {
    const { xs, ys } = transfer(x, BATCH);
    loss += step(xs, ys, forward, backward);
    tf.dispose([xs, ys]);
  }
  return loss;
}
let epoch = 0;
const traced = () =>
  ai.pipeline.train.run(() => {
    let loss = 0;
    for (const _ of ai.pipeline.epoch.iter([epoch++])) {
      let s = 0;
      for (const x of ai.dataloader.fetch.iter(batches(STEPS, tItem, tCollate))) {
        const { xs, ys } = tTransfer(x, BATCH);
        loss += tStep(xs, ys, tForward, tBackward);
        tf.dispose([xs, ys]);
        ai.update({ epoch, step: ++s });
      }
    }
    return loss;
  });

// The same tracers around no-op work: what the tracing itself costs per step, free of the noise
// that tfjs' own time brings into the ratio.
const noop = () => 0;
const nItem = ai.data.item(() => DATA);
const nCollate = ai.data.preprocess.derive('collate')(noop);
const nTransfer = ai.device.transfer(() => ({ xs: null, ys: null }));
const nStep = ai.compute.step((xs, ys, fw, bw) => fw(xs) + bw(noop));
const nForward = ai.compute.forward(noop);
const nBackward = ai.compute.backward(noop);
const tracingOnly = () =>
  ai.pipeline.train.run(() => {
    let s = 0;
    for (const _ of ai.pipeline.epoch.iter([epoch++])) {
      for (const x of ai.dataloader.fetch.iter(batches(STEPS, nItem, nCollate))) {
        const { xs, ys } = nTransfer(x, BATCH);
        nStep(xs, ys, nForward, nBackward);
        ai.update({ epoch, step: ++s });
      }
    }
    return s;
  });

/**
 * Per step: process CPU ms (the writer thread's included), the main thread's CPU ms, wall ms and
 * GC pause ms, over `reps` calls of f (a stretch of ≥ MIN_STRETCH_MS: schedstat moves in ticks).
 * CPU time is what the tracer costs; it is far less disturbed than wall time by other work on a
 * shared machine.
 */
const time = async (f, reps) => {
  const g0 = gcTotalMs();
  const c0 = processUs();
  const m0 = mainNs();
  const t0 = process.hrtime.bigint();
  for (let k = 0; k < reps; k++) if (!Number.isFinite(f())) throw new Error('loss is not finite');
  const steps = reps * STEPS;
  const r = { cpu: (processUs() - c0) / 1e3 / steps, main: (mainNs() - m0) / 1e6 / steps, wall: Number(process.hrtime.bigint() - t0) / 1e6 / steps };
  // GC entries arrive after the stretch, in a later turn of the event loop.
  await new Promise((res) => setTimeout(res, 1));
  r.gc = (gcTotalMs() - g0) / steps;
  return r;
};
/** Calls of f that make one stretch. */
const repsFor = async (f) => {
  const one = await time(f, 1);
  return Math.max(1, Math.ceil(MIN_STRETCH_MS / (one.wall * STEPS)));
};
await time(untraced, 1);
await time(traced, 1);
await time(tracingOnly, 1);
const reps = await repsFor(untraced);
const repsZ = await repsFor(tracingOnly);
for (let w = 0; w < 2; w++) {
  await time(untraced, reps);
  await time(traced, reps);
  await time(tracingOnly, repsZ);
}
const u = [];
const t = [];
const z = [];
for (let r = 0; r < ROUNDS; r++) {
  if (r & 1) {
    t.push(await time(traced, reps));
    u.push(await time(untraced, reps));
  } else {
    u.push(await time(untraced, reps));
    t.push(await time(traced, reps));
  }
  z.push(await time(tracingOnly, repsZ));
}
const med = (x) => [...x].sort((a, b) => a - b)[x.length >> 1];
const ratio = (k) => med(t.map((x, i) => x[k] / u[i][k]));
/** Median over rounds of traced − untraced (ms per step). */
const delta = (k) => med(t.map((x, i) => x[k] - u[i][k]));
// Per step: BATCH items, fetch.iter, fetch.block, collate, transfer, step, backward, forward.
const eventsPerStep = BATCH + 7;
finalize();
process.stdout.write(
  JSON.stringify({
    backend,
    kind,
    untracedCpuMs: med(u.map((x) => x.cpu)),
    tracedCpuMs: med(t.map((x) => x.cpu)),
    cpuRatio: ratio('cpu'),
    untracedWallMs: med(u.map((x) => x.wall)),
    wallRatio: ratio('wall'),
    mainRatio: ratio('main'),
    // Where the extra time of a traced step goes (ms per step, medians over rounds).
    deltaCpuMs: delta('cpu'),
    deltaMainMs: delta('main'),
    deltaGcMs: delta('gc'),
    tracingCpuMs: med(z.map((x) => x.cpu)),
    tracingMainMs: med(z.map((x) => x.main)),
    tracingGcMs: med(z.map((x) => x.gc)),
    eventsPerStep,
    reps,
    rounds: ROUNDS,
  }) + '\n',
);
