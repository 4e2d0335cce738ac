// pnpm bench: the soak (src/soak.ts) for 100,000 training steps with ai, dynamo, the profiler and
// counters on, printing the process's RSS (after a forced GC) and tfjs' tensor count at intervals,
// beside the goal: flat after the first fifth of the run.
// Options: --steps N (default 100000), --every N (default 5000). Build first: pnpm --filter @dftracer/examples... build.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { steps: { type: 'string' }, every: { type: 'string' } } });
const steps = values.steps ?? '100000';
const every = values.every ?? '5000';
const MiB = 2 ** 20;
const GOAL_MIB = 25;

const dir = mkdtempSync(join(tmpdir(), 'dftracer-soak-bench-'));
const program = fileURLToPath(new URL('../dist/soak.js', import.meta.url));
const child = spawn(process.execPath, ['--expose-gc', program, '--steps', steps, '--every', every], {
  env: { ...process.env, DFTRACER_LOG_FILE: join(dir, 'soak') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
console.log(`soak: ${steps} steps, cpu backend, ai + dynamo + profiler + counters on; goal: RSS growth after the first fifth < ${GOAL_MIB} MiB, tensors flat`);
console.log('| step | RSS (MiB) | JS heap (MiB) | tensors |\n|---:|---:|---:|---:|');
const t0 = performance.now();
let partial = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d) => {
  partial += d;
  const lines = partial.split('\n');
  partial = lines.pop();
  for (const l of lines) {
    if (!l.startsWith('{')) continue;
    const m = JSON.parse(l);
    if (m.done) {
      const growth = m.rssGrowth / MiB;
      console.log(`\nRSS growth from step ${m.from} to the end: ${growth.toFixed(1)} MiB (goal < ${GOAL_MIB} MiB: ${growth < GOAL_MIB ? 'met' : 'NOT met'}); tensors ${m.tensorGrowth === 0 ? 'flat' : `grew by ${m.tensorGrowth}`}; ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      process.exitCode = growth < GOAL_MIB && m.tensorGrowth === 0 ? 0 : 1;
    } else console.log(`| ${m.step} | ${(m.rss / MiB).toFixed(1)} | ${(m.heap / MiB).toFixed(1)} | ${m.tensors} |`);
  }
});
child.on('close', (code) => {
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) {
    console.error(`soak exited with ${code}`);
    process.exitCode = 1;
  }
});
