// dynamo's cost per traced kernel: a compiled function of K tiny tf.add kernels (cpu backend),
// against the same function untraced, with tfjs's kernel registry wrapped by a no-op listener
// (the hook alone), with a bare listener writing one core event per kernel with fixed args (the
// floor: the hook and the core's price of an event), and uncompiled while dynamo's hooks are in;
// alternating rounds in this process, main-thread CPU time. Prints one JSON line.
import * as tf from '@tensorflow/tfjs';
import { finalize, getTracer, initializeLog } from '@dftracer/core';
import { subscribeKernels } from '@dftracer/tfjs/internal';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile, createBackend } from '../dist/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const K = 64;
const ITERS = Number(process.env.BENCH_ITERS ?? 300);
await tf.setBackend(process.argv[2] ?? 'cpu');
await tf.ready();

const a = tf.scalar(1);
const b = tf.scalar(2);
const adds = (x) => {
  let y = x;
  for (let i = 0; i < K; i++) {
    const z = tf.add(y, b);
    if (y !== x) y.dispose();
    y = z;
  }
  return y;
};
const compiled = compile(adds, { backend: createBackend({ name: 'bench' }) });

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const clockNs = existsSync(schedstat) ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) : () => Number(process.hrtime.bigint());
/** Main-thread µs per kernel. */
const time = (f) => {
  const t0 = clockNs();
  for (let i = 0; i < ITERS; i++) f(a).dispose();
  return (clockNs() - t0) / 1000 / ITERS / K;
};

const dir = mkdtempSync(join(tmpdir(), 'dft-dynamo-kernel-'));
let n = 0;
const t = { raw: [], hub: [], floor: [], hooked: [], dynamo: [] };
/** The floor: each kernel as one event through the core's fastest path, its args fixed strings. */
const floorListener = () => {
  const tracer = getTracer();
  const shape = tracer.shape('function.Add', 'dynamo', ['grad_enabled', 'op', 'inputs', 'outputs']);
  return (c) => tracer.emitShaped(shape, c.start, c.end - c.start, 0, 'call_function', 'float32[], float32[]', 'float32[]');
};
for (let r = -2; r < ROUNDS; r++) {
  initializeLog({ enable: true, logFile: join(dir, `k${n++}`), dataDir: join(dir, 'none') });
  for (let i = 0; i < 50; i++) compiled(a).dispose();
  const d = time(compiled);
  const h = time(adds);
  const offFloor = subscribeKernels(tf, floorListener());
  const fl = time(adds);
  offFloor();
  finalize();
  const raw = time(adds);
  const off = subscribeKernels(tf, () => {});
  const hub = time(adds);
  off();
  if (r < 0) continue; // warm-up rounds
  t.dynamo.push(d);
  t.hooked.push(h);
  t.floor.push(fl);
  t.raw.push(raw);
  t.hub.push(hub);
}
rmSync(dir, { recursive: true, force: true });
const med = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
const over = (k) => med(t[k].map((v, i) => v - t.raw[i]));
console.log(JSON.stringify({ backend: tf.getBackend(), kernels: K, rawUs: med(t.raw), hubUs: over('hub'), floorUs: over('floor'), hookedUs: over('hooked'), dynamoUs: over('dynamo'), rounds: ROUNDS, clock: existsSync(schedstat) ? 'main-thread CPU' : 'wall' }));
