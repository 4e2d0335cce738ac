/**
 * The verdict table: real tfjs programs (cpu backend; leak-program.test-util.mjs) with a leak and
 * without one, each run idle and beside two CPU hogs (child processes spinning), read back by the
 * summary. The verdict must be the same under load: a busy machine changes where samples fall and
 * how far a prefetching loader reads ahead, not whether tensors are kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { traceFiles } from '@dftracer/testing';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { summarize } from '../summary/summary.js';

const PROGRAM = fileURLToPath(new URL('./leak-program.test-util.mjs', import.meta.url));
const { dir, cleanup } = tempDir();
afterAll(cleanup);

type Load = 'idle' | '2 hogs';

/** Two processes spinning on the CPU until stopped (the machine has two cores). */
function hogs(): () => void {
  const spinning: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => spinning.forEach((c) => c.kill('SIGKILL'));
}

async function runProgram(program: string, load: Load): Promise<{ kept: number; steps: number; deepest: number; trace: string }> {
  const prefix = join(dir, `${program}-${load.replace(' ', '-')}`);
  const stop = load === '2 hogs' ? hogs() : () => {};
  try {
    const child = spawn(process.execPath, [PROGRAM], { env: { ...process.env, LEAK_PROGRAM: program, LEAK_TRACE: prefix }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const code = await new Promise<number | null>((res) => child.on('close', res));
    if (code !== 0) throw new Error(`${program} exited with ${code}: ${err}`);
    const files = traceFiles(dir).filter((f) => f.startsWith(`${prefix}-`));
    expect(files).toHaveLength(1);
    return { ...(JSON.parse(out.trim().split('\n').pop()!) as { kept: number; steps: number; deepest: number }), trace: files[0]! };
  } finally {
    stop();
  }
}

const table: string[] = [];
afterAll(() => console.log(`program × load → verdict\n${table.join('\n')}`));

describe('the tensor-leak verdict of real tfjs programs, idle and beside two CPU hogs', () => {
  // program, the verdict it deserves, and the rate (tensors / step) a leak has by the program's own count
  const cases = [
    ['leak-step', 'leak'],
    ['leak-10-steps', 'leak'],
    ['one-off', 'none'], // 5 MiB kept once in epoch 2: the floor steps up once, then stays flat
    ['steady', 'none'],
    ['prefetch', 'none'],
    ['warm-up', 'none'], // a cache filled by the first 20 steps
  ] as const;
  for (const load of ['idle', '2 hogs'] as const) {
    for (const [program, deserved] of cases) {
      it(`${program}, ${load}: ${deserved}`, async () => {
        const r = await runProgram(program, load);
        const s = await summarize([r.trace]);
        const t = s.counters[0]!.tfjs!;
        table.push(`  ${program.padEnd(14)} ${load.padEnd(7)} → ${t.leak.padEnd(5)} ${t.verdict}${program === 'prefetch' ? `   (the loader's deepest queue: ${r.deepest} batches)` : ''}`);
        expect(t.leak).toBe(deserved);
        if (deserved === 'leak') {
          expect(t.tensors_growth!.rate).toBeCloseTo(r.kept / r.steps, 1);
          expect(t.tensors_growth!.over).toBe(3);
          expect(t.verdict).toMatch(/^yes, \+[\d.]+ tensors? \/ step \(\+\d+ \/ epoch\).*, over 3 epochs$/);
        } else expect(t.verdict).toBe('none');
      });
    }
  }
});
