// One backend per process: a real tfjs training step, untraced and with every ai tracer on, in
// alternating rounds (ABBA) so both meet the same moments of the machine. Prints one JSON line.
// Usage: node step.mjs <wasm|cpu> <mlp|cnn> <outDir>
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [, , backend, kind, outDir] = process.argv;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
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

// The main thread's CPU time (Linux schedstat, ns), apart from the writer thread's; elsewhere 0.
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const mainNs = existsSync(schedstat) ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) : () => 0;
/** Per step: process CPU ms (the writer thread's included), the main thread's CPU ms, and wall ms.
 * CPU time is what the tracer costs; it is far less disturbed than wall time by other work on a
 * shared machine. */
const time = (f) => {
  const c0 = process.cpuUsage();
  const m0 = mainNs();
  const t0 = process.hrtime.bigint();
  const l = f();
  const c = process.cpuUsage(c0);
  const main = (mainNs() - m0) / 1e6 / STEPS;
  if (!Number.isFinite(l)) throw new Error('loss is not finite');
  return { cpu: (c.user + c.system) / 1e3 / STEPS, main, wall: Number(process.hrtime.bigint() - t0) / 1e6 / STEPS };
};
for (let w = 0; w < 3; w++) {
  time(untraced);
  time(traced);
  time(tracingOnly);
}
const u = [];
const t = [];
const z = [];
for (let r = 0; r < ROUNDS; r++) {
  if (r & 1) {
    t.push(time(traced));
    u.push(time(untraced));
  } else {
    u.push(time(untraced));
    t.push(time(traced));
  }
  z.push(time(tracingOnly));
}
const med = (x) => [...x].sort((a, b) => a - b)[x.length >> 1];
const ratio = (k) => med(t.map((x, i) => x[k] / u[i][k]));
// Per step: BATCH items, fetch.iter, fetch.block, collate, transfer, step, backward, forward.
const eventsPerStep = BATCH + 7;
finalize();
process.stdout.write(
  JSON.stringify({ backend, kind, untracedCpuMs: med(u.map((x) => x.cpu)), tracedCpuMs: med(t.map((x) => x.cpu)), cpuRatio: ratio('cpu'), untracedWallMs: med(u.map((x) => x.wall)), wallRatio: ratio('wall'), mainRatio: ratio('main'), tracingCpuMs: med(z.map((x) => x.cpu)), tracingMainMs: med(z.map((x) => x.main)), eventsPerStep }) + '\n',
);
