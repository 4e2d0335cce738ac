// One `ai.compute.forward` event around a tiny tf op (cpu backend), against the raw call, in
// alternating rounds in this process: with the tensor hooks of useTf (out_shape, out_bytes, memory
// deltas), without them, and core's `dftFn` around the same op (the reference). Main-thread CPU per
// call, and the whole process's (the writer thread formats and compresses the events). Prints one
// JSON line. Usage: node event.mjs <outDir>
import { join } from 'node:path';
import { MIN_STRETCH_MS, hasMainClock, mainNs, processUs } from './cpu-clock.mjs';

const [, , outDir] = process.argv;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);

const { initializeLog, finalize, dftFn } = await import('@dftracer/core');
const { ai, loadTf } = await import(new URL('../dist/index.js', import.meta.url).href);
initializeLog({ enable: true, logFile: join(outDir, 'bench-event'), dataDir: join(outDir, 'data') });
const { tf } = await loadTf({ prefer: ['cpu'] });

const a = tf.scalar(1);
const b = tf.scalar(2);
const op = () => tf.add(a, b);
// The same calls with ai.update's step args, as a training loop has them.
ai.update({ epoch: 1, step: 1 });
const fns = {
  raw: op,
  // core's dftFn with the same step args: the price of a traced call that the events aim at.
  dftfn: dftFn('bench').update({ epoch: 1, step: 1 }).log(op),
  // The same ai event without hooks: the core's plain path.
  plain: (() => {
    const t = ai.compute.derive('forward_nohooks');
    t.instrument.setHooks(undefined);
    return t(op);
  })(),
  hooked: ai.compute.forward(op),
};

const clock = hasMainClock ? mainNs : () => Number(process.hrtime.bigint());
// Calls per stretch: enough that the raw op alone lasts MIN_STRETCH_MS (schedstat ticks, ~4 ms),
// counted once every variant is warm (tfjs' first calls are far slower).
for (const f of Object.values(fns)) for (let i = 0; i < 20000; i++) f().dispose();
let n = 1000;
for (;;) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) op().dispose();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (ms >= MIN_STRETCH_MS / 4) {
    n = Math.ceil((n * MIN_STRETCH_MS) / ms);
    break;
  }
  n *= 4;
}
const loop = (f) => {
  const p0 = processUs();
  const t0 = clock();
  for (let i = 0; i < n; i++) f().dispose();
  return { main: (clock() - t0) / n / 1000, proc: (processUs() - p0) / n };
};
const names = Object.keys(fns);
names.forEach((k) => loop(fns[k]));
const r = Object.fromEntries(names.map((k) => [k, []]));
for (let k = 0; k < ROUNDS; k++) for (const name of k & 1 ? [...names].reverse() : names) r[name].push(loop(fns[name]));
finalize();
const med = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
/** Median over rounds of (variant − raw) in the same round. */
const diff = (k, field) => med(r[k].map((v, i) => v[field] - r.raw[i][field]));
process.stdout.write(
  JSON.stringify({
    rawUs: med(r.raw.map((v) => v.main)),
    dftfnUs: diff('dftfn', 'main'),
    plainUs: diff('plain', 'main'),
    hookedUs: diff('hooked', 'main'),
    dftfnProcUs: diff('dftfn', 'proc'),
    hookedProcUs: diff('hooked', 'proc'),
    calls: n,
    rounds: ROUNDS,
    clock: hasMainClock ? 'main-thread CPU' : 'wall',
  }) + '\n',
);
