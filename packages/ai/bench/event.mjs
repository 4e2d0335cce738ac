// One `ai.compute.forward` event around a tiny tf op (cpu backend), against the raw call, in
// alternating rounds in this process: with the tensor hooks of useTf (out_shape, out_bytes, memory
// deltas) and without. Main-thread time per call. Prints one JSON line.
// Usage: node event.mjs <outDir>
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [, , outDir] = process.argv;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const N = Number(process.env.BENCH_CALLS ?? 20000);

const { initializeLog, finalize } = await import('@dftracer/core');
const { ai, loadTf, computeHooks } = await import(new URL('../dist/index.js', import.meta.url).href);
initializeLog({ enable: true, logFile: join(outDir, 'bench-event'), dataDir: join(outDir, 'data') });
const { tf } = await loadTf({ prefer: ['cpu'] });

const a = tf.scalar(1);
const b = tf.scalar(2);
const op = () => tf.add(a, b);
const hooked = ai.compute.forward(op);
// A variant without hooks: the same event, the core's plain path.
const plainIns = ai.compute.derive('forward_nohooks');
plainIns.instrument.setHooks(undefined);
const plain = plainIns(op);
// The same calls with ai.update's step args, as a training loop has them.
ai.update({ epoch: 1, step: 1 });

// The main thread's CPU time (Linux schedstat, ns): on a shared machine wall time is mostly other
// processes' scheduling. Elsewhere, wall time.
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const clockNs = existsSync(schedstat) ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) : () => Number(process.hrtime.bigint());
const loop = (f) => {
  const t0 = clockNs();
  for (let i = 0; i < N; i++) f().dispose();
  return (clockNs() - t0) / N / 1000;
};
for (let w = 0; w < 3; w++) [op, plain, hooked].forEach(loop);
const r = { raw: [], plain: [], hooked: [] };
for (let k = 0; k < ROUNDS; k++) {
  const order = k & 1 ? ['hooked', 'plain', 'raw'] : ['raw', 'plain', 'hooked'];
  for (const name of order) r[name].push(loop({ raw: op, plain, hooked }[name]));
}
finalize();
const med = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
const diff = (k) => med(r[k].map((v, i) => v - r.raw[i]));
process.stdout.write(JSON.stringify({ rawUs: med(r.raw), plainUs: diff('plain'), hookedUs: diff('hooked'), calls: N, rounds: ROUNDS, clock: existsSync(schedstat) ? 'main-thread CPU' : 'wall' }) + '\n');
void computeHooks;
