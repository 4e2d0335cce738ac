/**
 * Invariants of the new columns on realistic traces: busy and self time of every category and
 * name at most the wall time (self at most busy), and each process' phases adding up to its wall
 * time. On a synthetic training trace (lanes of concurrent reads, nesting across threads) always;
 * on a demo trace too when DFTRACER_DEMO_TRACE names one (`npx -y pnpm@9 demo` prints its path).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarize, type Summary } from './summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

function checkInvariants(s: Summary): void {
  const wall = Math.max(...s.per_process.map((p) => p.wall_us));
  for (const r of [...s.by_cat, ...s.by_name]) {
    expect(r.busy_us, `${r.cat}`).toBeLessThanOrEqual(wall);
    expect(r.self_us, `${r.cat}`).toBeLessThanOrEqual(r.busy_us);
    expect(r.busy_us, `${r.cat}`).toBeLessThanOrEqual(r.total_us);
  }
  for (const p of [...s.phases.processes, ...s.phases.epochs, ...s.phases.steps]) {
    expect(p.compute_us + p.wait_us + p.io_only_us + p.other_us + p.idle_us, p.label).toBe(p.wall_us);
    expect(p.overlap_us).toBeLessThanOrEqual(Math.min(p.io_us, p.compute_us));
  }
}

describe('busy and self time never exceed the wall time', () => {
  it('on a synthetic training trace with concurrent lanes', async () => {
    const path = join(dir, 'synth.pfw.gz');
    writeSyntheticTrace({ path, events: 20_000, seed: 3 });
    const s = await summarize([path], { threads: 2 });
    const posix = s.by_cat.find((c) => c.cat === 'POSIX')!;
    expect(posix.total_us).toBeGreaterThan(posix.busy_us); // concurrent reads: the sum overcounts
    checkInvariants(s);
  });

  const demo = process.env.DFTRACER_DEMO_TRACE;
  it.runIf(Boolean(demo && existsSync(demo)))('on the demo trace (DFTRACER_DEMO_TRACE)', async () => {
    const s = await summarize([demo!], { threads: 2 });
    checkInvariants(s);
    expect(s.phases.epochs.length).toBeGreaterThan(0);
    expect(s.files.length).toBeGreaterThan(2000);
    // the demo's 2,582 images live in a few directories (train/<class>, test/<class>)
    expect(s.file_groups.length).toBeLessThan(30);
    expect(s.file_groups.reduce((a, g) => a + g.files, 0)).toBe(s.files.length);
  });
});
