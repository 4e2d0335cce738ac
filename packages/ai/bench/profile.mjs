// A workload for `node --cpu-prof`: many `ai.compute.forward` events with the useTf tensor hooks
// around a tiny tf op (cpu backend), or the same op untraced, or (`tracer`) the event around a
// function returning a tensor made once, so the profile holds the tracer alone. `node bench/top.mjs
// <file>` lists where the time went.
// Usage: node --cpu-prof --cpu-prof-dir=<dir> bench/profile.mjs <outDir> [traced|untraced|tracer] [calls]
import { join } from 'node:path';

const [, , outDir, mode = 'traced', calls = '400000'] = process.argv;
const N = Number(calls);
const { initializeLog, finalize } = await import('@dftracer/core');
const { ai, loadTf } = await import(new URL('../dist/index.js', import.meta.url).href);
initializeLog({ enable: true, logFile: join(outDir, 'profile'), dataDir: join(outDir, 'data') });
const { tf } = await loadTf({ prefer: ['cpu'] });
ai.update({ epoch: 1, step: 1 });
const a = tf.scalar(1);
const b = tf.scalar(2);
const op = () => tf.add(a, b);
const f = mode === 'traced' ? ai.compute.forward(op) : mode === 'tracer' ? ai.compute.forward(() => a) : op;
const t0 = process.cpuUsage();
if (mode === 'tracer') for (let i = 0; i < N; i++) f();
else for (let i = 0; i < N; i++) f().dispose();
const c = process.cpuUsage(t0);
finalize();
process.stdout.write(`${mode}: ${N} calls, ${((c.user + c.system) / 1e3).toFixed(0)} ms process CPU (writer thread included)\n`);
