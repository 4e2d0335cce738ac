/**
 * Events whose times cannot be true (no, negative or absurd `ts` or `dur`) are left out of the
 * analysis and counted in a warning, never turned into decades of wall time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { summarize } from './summary.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

const T0 = 1760934170000000;
const STEPS = 20;
const STEP_US = 500;
const END = T0 + 30_000;

/** A run of `STEPS` compute steps between T0 and END, with `bad` impossible events planted among them. */
function trace(path: string, bad: Array<{ ts: number; dur: number }>): void {
  const w = new TraceWriter({ path, pid: 7, memberBytes: 256 });
  w.header();
  w.start(T0);
  for (let i = 0; i < STEPS; i++) {
    w.complete('step', 'compute', T0 + 1000 + i * 1000, STEP_US);
    if (bad[i]) w.complete('bad', 'compute', bad[i]!.ts, bad[i]!.dur);
  }
  w.end(END);
  w.close();
}

const BAD = [
  { ts: 0, dur: 10 }, // 56 years before the run: a zeroed timestamp
  { ts: -5, dur: 10 },
  { ts: T0 + 2000, dur: -3 },
  { ts: T0 + 3000, dur: 1e15 }, // 31 years long
  { ts: T0 + 400 * 366 * 24 * 3600 * 1e6, dur: 10 }, // 400 years after
];

describe('impossible times', () => {
  it('are left out of every figure and counted in a warning', async () => {
    const path = join(dir, 'bad-times.pfw.gz');
    trace(path, BAD);
    const s = await summarize([path], { threads: 1 });
    // the program's own clock: start at T0, end at END, STEPS steps of STEP_US computing
    expect(s.wall_us).toBe(END - T0);
    expect(s.events).toBe(STEPS + 2);
    expect(s.totals.compute_us).toBe(STEPS * STEP_US);
    expect(s.by_name.find((n) => n.name === 'bad')).toBeUndefined();
    expect(s.warnings).toEqual([{ file: path, message: `${BAD.length} events with impossible times (no, negative or absurd ts or dur) left out of the analysis` }]);
  });

  it('a clean trace has no warning', async () => {
    const path = join(dir, 'clean.pfw.gz');
    trace(path, []);
    const s = await summarize([path], { threads: 1 });
    expect(s.wall_us).toBe(END - T0);
    expect(s.warnings).toEqual([]);
  });

  it.skipIf(!existsSync(CLI))('the warning is in summary\'s text and JSON', () => {
    const path = join(dir, 'bad-times-cli.pfw.gz');
    trace(path, BAD);
    const text = spawnSync(process.execPath, [CLI, 'summary', path], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`warning: ${path}: 5 events with impossible times`);
    expect(text.stdout).toMatch(/wall time 30(\.0)? ms/);
    const json = spawnSync(process.execPath, [CLI, 'summary', '--json', path], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } });
    expect(json.status).toBe(0);
    const j = JSON.parse(json.stdout) as { wall_us: number; warnings: string[] };
    expect(j.wall_us).toBe(END - T0);
    expect(j.warnings).toEqual([`${path}: 5 events with impossible times (no, negative or absurd ts or dur) left out of the analysis`]);
  });
});
