/**
 * Aggregated records of our own writer (`"ph":"C"` with `args.dft_cnt`): the same program traced
 * with and without DFTRACER_ENABLE_AGGREGATION gives the same summary calls and bytes per name,
 * and the folded trace's time per name is the sum of its records' `dur_sum`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readTrace } from '@dftracer/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { summarize } from './summary.js';

const require = createRequire(import.meta.url);
const coreEntry = join(dirname(require.resolve('@dftracer/core/package.json')), 'dist', 'index.js');
const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** Reads of four files, many times over: the fs tracer's calls fold per name, file and interval. */
const PROGRAM = `
import { initializeLog, finalize } from ${JSON.stringify(pathToFileURL(coreEntry).href)};
import fs from 'node:fs';
import { join } from 'node:path';
const [dataDir, logFile] = process.argv.slice(1);
initializeLog({ enable: true, logFile, dataDir, compression: false });
for (let i = 0; i < 4; i++) fs.writeFileSync(join(dataDir, 'f' + i + '.bin'), Buffer.alloc(5000 + i, i));
const b = Buffer.alloc(4096);
for (let r = 0; r < 50; r++) {
  for (let i = 0; i < 4; i++) {
    const fd = fs.openSync(join(dataDir, 'f' + i + '.bin'), 'r');
    fs.readSync(fd, b, 0, 4096, r % 7);
    fs.closeSync(fd);
  }
}
finalize();
`;

function run(name: string, fold: boolean): string {
  const work = join(dir, name);
  mkdirSync(join(work, 'data'), { recursive: true });
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM, join(work, 'data'), join(work, 'trace')], {
    encoding: 'utf8',
    env: { ...process.env, DFTRACER_ENABLE_AGGREGATION: fold ? '1' : '0' },
  });
  expect(r.status, r.stderr).toBe(0);
  const files = readdirSync(work).filter((f) => f.includes('.pfw'));
  expect(files.length).toBe(1);
  return join(work, files[0]!);
}

describe.skipIf(!existsSync(coreEntry))('aggregated records of our writer', () => {
  it('summary gives the same calls and bytes per name folded and unfolded; time = the records’ dur_sum', async () => {
    const plain = run('plain', false);
    const folded = run('folded', true);
    const t = readTrace(folded);
    const agg = t.counters.filter((c) => (c.args as Record<string, unknown> | undefined)?.dft_cnt !== undefined);
    expect(agg.length).toBeGreaterThan(0);
    const a = await summarize([plain], { threads: 1 });
    const b = await summarize([folded], { threads: 1 });
    const posix = (s: typeof a) => Object.fromEntries(s.by_name.filter((x) => x.cat === 'POSIX').map((x) => [x.name, x.count]));
    expect(posix(b)).toEqual(posix(a));
    expect(posix(a).pread).toBe(200);
    expect([b.bytes_read, b.bytes_written]).toEqual([a.bytes_read, a.bytes_written]);
    expect(a.bytes_read).toBeGreaterThan(0);
    // the folded preads' time: their records' dur_sum (or dur), plus any read left unfolded
    const reads = b.by_name.find((x) => x.cat === 'POSIX' && x.name === 'pread')!;
    const want =
      agg.filter((c) => c.name === 'pread' && c.cat === 'POSIX').reduce((s, c) => s + Number((c.args as Record<string, unknown>).dur_sum ?? (c.args as Record<string, unknown>).dur), 0) +
      t.complete.filter((e) => e.name === 'pread' && e.cat === 'POSIX').reduce((s, e) => s + Number(e.dur), 0);
    expect(reads.total_us).toBe(want);
    expect(reads.folded).toBeGreaterThan(0);
  });
});
