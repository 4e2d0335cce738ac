import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSummaries, formatComparison } from './compare.js';
import { summarize, formatSummary } from '../summary/summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';
import { writeTrainingTrace } from '../test-util/training.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);
// the built bin (the package's test task builds first)
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, NO_PROGRESS: '1' } });

describe('compare', () => {
  let base: string;
  let variant: string;
  beforeAll(() => {
    // the base run's loader stalls 400 µs in epoch 2; the variant's only 100 µs
    base = join(dir, 'base');
    variant = join(dir, 'variant');
    mkdirSync(base);
    mkdirSync(variant);
    for (const [d, stall] of [[base, 400], [variant, 100]] as const) {
      writeTrainingTrace({ path: join(d, 'rank0.pfw.gz'), layout: 'ours', pid: 100, stall });
      writeTrainingTrace({ path: join(d, 'rank1.pfw.gz'), layout: 'ours', pid: 200, stall });
    }
  });

  it('puts the known change first: less data wait, more compute, the loader wait on top of the names', async () => {
    const a = await summarize([join(base, 'rank0.pfw.gz'), join(base, 'rank1.pfw.gz')], { threads: 1 });
    const b = await summarize([join(variant, 'rank0.pfw.gz'), join(variant, 'rank1.pfw.gz')], { threads: 1 });
    const c = compareSummaries(a, b);
    const fig = (name: string) => c.figures.find((f) => f.figure === name)!;
    expect(c.figures[0]).toMatchObject({ figure: 'wall', base: 1000, variant: 1000, delta: 0 });
    // two processes: 2 × 300 µs less waiting, 2 × 300 µs more compute
    expect(fig('data wait')).toMatchObject({ base: 1040, variant: 440, delta: -600 });
    expect(fig('compute')).toMatchObject({ base: 760, variant: 1360, delta: 600 });
    expect(c.figures[1]!.figure).toMatch(/^(compute|data wait)$/);
    expect(c.names[0]).toMatchObject({ cat: 'dataloader', name: 'fetch.iter', base_self_us: 1040, variant_self_us: 440, delta_us: -600 });
    expect(c.names.map((n) => n.name).slice(1, 3).sort()).toEqual(['backward', 'forward']);
    const text = formatComparison(c);
    expect(text).toMatch(/data wait\s+1\.04 ms\s+440 µs\s+−600 µs\s+−58%/);
  });

  it('runs from the command line on two directories, as text and JSON', () => {
    const r = run(['compare', base, variant]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/data wait/);
    const j = run(['compare', '--json', base, variant]);
    expect(JSON.parse(j.stdout).names[0].name).toBe('fetch.iter');
    const bad = run(['compare', base]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/exactly two runs/);
  });

  it('summary --by epoch|step prints and emits only that view', () => {
    const r = run(['summary', '--by', 'epoch', '--json', join(base, 'rank0.pfw.gz')]);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.epochs.map((e: { wait_us: number }) => e.wait_us)).toEqual([120, 400]);
    expect(j.steps).toBeUndefined();
    const t = run(['summary', '--by', 'step', join(base, 'rank0.pfw.gz')]);
    expect(t.stdout).toMatch(/By step \(3 steps, from step-arg/);
    expect(run(['summary', '--by', 'week', join(base, 'rank0.pfw.gz')]).stderr).toMatch(/--by must be epoch or step/);
  });
});

describe('files grouped by directory', () => {
  it('groups many files by directory with counts, bytes and bytes per file; lists them when asked', async () => {
    const path = join(dir, 'files.pfw.gz');
    const w = new TraceWriter({ path, pid: 400 });
    w.header();
    w.start(0);
    let t = 10;
    const dirs: Array<[string, number, number]> = [['/data/a', 10, 100], ['/data/b', 15, 300], ['/data/c', 5, 50]];
    for (const [d, n, size] of dirs)
      for (let i = 0; i < n; i++) {
        const f = w.fileHash(`${d}/f${i}.bin`);
        w.complete('open', 'POSIX', t, 2, { args: { fhash: f } });
        // file i reads size + i bytes
        w.complete('read', 'POSIX', t + 2, 5, { args: { fhash: f, count: size + i, ret: size + i } });
        t += 10;
      }
    w.end(t);
    w.close();
    const s = await summarize([path], { threads: 1 });
    expect(s.files).toHaveLength(30);
    const g = Object.fromEntries(s.file_groups.map((x) => [x.dir, x]));
    expect(g['/data/b']).toMatchObject({ files: 15, ops: 30, bytes_read: 15 * 300 + 105, io_us: 15 * 7, busy_us: 15 * 7, file_bytes_min: 300, file_bytes_max: 314, file_bytes_p50: 307 });
    expect(g['/data/a']).toMatchObject({ files: 10, bytes_read: 1045, file_bytes_min: 100, file_bytes_max: 109 });
    expect(s.file_groups.map((x) => x.dir)).toEqual(['/data/b', '/data/a', '/data/c']);
    const text = formatSummary(s);
    expect(text).toMatch(/Files by directory, most bytes read and written first \(30 files in 3 directories; --files lists them\)/);
    // the table in the order its title says: /data/b (4.61 KiB), /data/a (1.02 KiB), /data/c (260 B)
    expect([...text.matchAll(/^(\/data\/[abc]) /gm)].map((m) => m[1])).toEqual(['/data/b', '/data/a', '/data/c']);
    expect(text).not.toMatch(/^Files \(top/m);
    expect(formatSummary(s, { files: true })).toMatch(/^Files \(top 30 of 30, most bytes read and written first\)$[^]*\/data\/b\/f14\.bin/m);
  });
});
