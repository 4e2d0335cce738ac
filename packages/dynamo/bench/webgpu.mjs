// dynamo on tfjs's WebGPU backend (Dawn): the cost of tracing a CNN train step against the untraced
// step, per device-time mode, beside tf.profile in the same interleaved rounds; and, where the adapter
// has timestamp-query, per-kernel device times against tf.profile's. Runs on a GPU, or on Mesa's
// software renderer (DFTRACER_WEBGPU_DAWN_OPTIONS=backend=opengles, DFTRACER_WEBGPU_FEATURE_LEVEL=
// compatibility, EGL_PLATFORM=surfaceless), where there are no timestamps. Prints one JSON line.
// env: TRACE_DIR (trace folder), BENCH_BIG=0 (skip the large step), BENCH_ROUNDS.
import { performance } from 'node:perf_hooks';
import { readFileSync, mkdtempSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { finalize, initializeLog } from '@dftracer/core';
import { deviceTimesSettled, setUpWebGPU } from '@dftracer/tfjs';
import { compile, createBackend } from '@dftracer/dynamo';

const out = { node: process.version };
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const r3 = (x) => Math.round(x * 1000) / 1000;
const log = (...a) => console.error('[webgpu-bench]', ...a);

const setup = await setUpWebGPU(tf, { webgpuBackend: () => import('@tensorflow/tfjs-backend-webgpu'), explicit: true });
out.adapter = setup.adapter;
const timestamps = setup.adapter.timestampQuery;
log('adapter', JSON.stringify(setup.adapter));

const dir = process.env.TRACE_DIR || mkdtempSync(join(tmpdir(), 'dft-webgpu-'));
const traceFile = initializeLog({ enable: true, logFile: join(dir, 'webgpu-bench'), dataDir: join(dir, 'none') }).file;

function cnn(size, wide) {
  return tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [size, size, 3], filters: 8 * wide, kernelSize: 3, padding: 'same', activation: 'relu' }),
      tf.layers.conv2d({ filters: 16 * wide, kernelSize: 3, padding: 'same', activation: 'relu' }),
      tf.layers.maxPooling2d({ poolSize: 2 }),
      tf.layers.conv2d({ filters: 32 * wide, kernelSize: 3, padding: 'same', activation: 'relu' }),
      tf.layers.maxPooling2d({ poolSize: 2 }),
      tf.layers.flatten(),
      tf.layers.dense({ units: 64 * wide, activation: 'relu' }),
      tf.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
}

/** A train step for a model (or its compiled view): minimize, then wait for the loss as a user does. */
function trainer(size, batch, wide) {
  const model = cnn(size, wide);
  const opt = tf.train.adam(1e-3);
  const x = tf.randomNormal([batch, size, size, 3]);
  const y = tf.oneHot(tf.tensor1d(Array.from({ length: batch }, (_, i) => i % 10), 'int32'), 10);
  const step = (m) => async () => {
    const l = opt.minimize(() => tf.losses.softmaxCrossEntropy(y, m.apply(x)), true);
    await l.data();
    l.dispose();
  };
  return { model, step };
}

/** Kernel names tf.profile lists that are kernels (it also lists customGrad scopes). */
const isKernel = (n) => tf.getKernel(n, 'webgpu') !== undefined;

async function profiled(stepFn) {
  const p = await tf.profile(() => {
    void stepFn();
  });
  const byName = {};
  let n = 0;
  for (const k of p.kernels) {
    if (!isKernel(k.name)) continue;
    n++;
    const ms = typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : await k.kernelTimeMs;
    byName[k.name] = (byName[k.name] ?? 0) + (typeof ms === 'number' ? ms : 0);
  }
  return { byName, kernels: n };
}

/** Untraced, dynamo (off / timestamp), tf.profile: interleaved, median wall per step and per-round ratios. */
async function cost(label, size, batch, wide, rounds) {
  const t = trainer(size, batch, wide);
  const cases = {
    untraced: t.step(t.model),
    dynamo_off: t.step(compile(t.model, { backend: createBackend({ name: `${label}_off`, deviceTime: 'off' }) })),
  };
  if (timestamps) cases.dynamo_timestamp = t.step(compile(t.model, { backend: createBackend({ name: `${label}_ts`, deviceTime: 'timestamp' }) }));
  const plainStep = t.step(t.model);
  cases.tf_profile = async () => {
    await tf.profile(() => {
      void plainStep();
    });
  };
  for (const f of Object.values(cases)) for (let i = 0; i < 3; i++) await f();
  const ms = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r & 1 ? Object.keys(cases).reverse() : Object.keys(cases);
    for (const k of order) {
      const t0 = performance.now();
      await cases[k]();
      ms[k].push(performance.now() - t0);
    }
  }
  await deviceTimesSettled();
  const res = { size, batch, rounds, stepMs: {}, ratio: {} };
  for (const k of Object.keys(cases)) {
    res.stepMs[k] = r3(med(ms[k]));
    if (k !== 'untraced') res.ratio[k] = r3(med(ms[k].map((v, i) => v / ms.untraced[i])));
  }
  return res;
}

/** One step traced with device timestamps beside one profiled by tfjs: per-kernel GPU ms by name. */
async function accuracy(size, batch, wide) {
  const t = trainer(size, batch, wide);
  const backend = createBackend({ name: 'accuracy', step: 0, deviceTime: 'timestamp' });
  const compiled = compile(t.model, { backend });
  const plain = t.step(t.model);
  const traced = t.step(compiled);
  for (let i = 0; i < 3; i++) {
    await plain();
    await traced();
  }
  const prof = await profiled(plain);
  const t0 = performance.now();
  await plain();
  const stepMs = performance.now() - t0;
  // The traced step is read back from the trace at the end (backend 'accuracy', step 1).
  backend.update({ step: 1 });
  await traced();
  await deviceTimesSettled();
  backend.update({ step: 2 });
  return { stepMs: r3(stepMs), profile: prof };
}

const rounds = Number(process.env.BENCH_ROUNDS || (timestamps ? 30 : 6));
try {
  out.small = await cost('small', 32, 8, 1, rounds);
  log('small', JSON.stringify(out.small));
  if (timestamps && process.env.BENCH_BIG !== '0') {
    out.accuracy = await accuracy(64, 128, 4);
    out.big = await cost('big', 64, 128, 4, Math.max(4, Math.round(rounds / 5)));
    log('big', JSON.stringify(out.big));
  }
} catch (e) {
  out.error = String(e?.stack ?? e).slice(0, 1500);
}
finalize();

// Read the trace back: the accuracy step's kernels by name, their device time, and the device track.
const text = gunzipSync(readFileSync(traceFile)).toString();
const events = text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const device = events.filter((e) => e.args?.device_track !== undefined);
out.trace = { file: traceFile, events: events.length, deviceTrackEvents: device.length, withDeviceUs: events.filter((e) => typeof e.args?.device_us === 'number').length };
if (out.accuracy !== undefined) {
  const mine = {};
  for (const e of events) if (e.args?.step === 1 && e.cat === 'dynamo' && e.name.startsWith('function.') && typeof e.args.device_us === 'number' && e.args.device_track === undefined) {
    const k = e.name.slice('function.'.length);
    mine[k] = (mine[k] ?? 0) + e.args.device_us / 1000;
  }
  const prof = out.accuracy.profile.byName;
  const total = Object.values(prof).reduce((a, b) => a + b, 0);
  const rows = Object.keys({ ...prof, ...mine })
    .map((k) => ({ kernel: k, tfProfileMs: r3(prof[k] ?? 0), deviceMs: r3(mine[k] ?? 0), diffPct: prof[k] ? r3((((mine[k] ?? 0) - prof[k]) / prof[k]) * 100) : null, share: r3((prof[k] ?? 0) / total) }))
    .sort((a, b) => b.tfProfileMs - a.tfProfileMs);
  out.accuracy.kernels = rows.slice(0, 12);
  out.accuracy.profileTotalMs = r3(total);
  out.accuracy.deviceTotalMs = r3(Object.values(mine).reduce((a, b) => a + b, 0));
  delete out.accuracy.profile;
  // The largest kernel on the device track.
  const byLaunch = new Map(events.filter((e) => e.args?.step === 1).map((e) => [e.id, e]));
  const trackSums = {};
  for (const d of device) if (byLaunch.has(d.args.launch_id)) trackSums[d.name] = (trackSums[d.name] ?? 0) + d.dur;
  out.accuracy.largestOnDeviceTrack = Object.entries(trackSums).sort((a, b) => b[1] - a[1])[0] ?? null;
  const us = device.map((d) => d.args.device_us).filter((u) => u > 0);
  out.accuracy.quantizedShare = us.length ? r3(us.filter((u) => u % 100 === 0).length / us.length) : null;
}
console.log('WEBGPU_BENCH ' + JSON.stringify(out));
tf.removeBackend('webgpu');
setup.release();
process.stdout.write('', () => process.exit(out.error ? 1 : 0));
