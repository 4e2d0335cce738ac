/**
 * End to end with the real tracer: a child `node` process traces its own file I/O with
 * @dftracer/core; the analyzer validates and summarises the trace it wrote.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { summarize } from '../summary/summary.js';
import { readTrace } from '@dftracer/testing';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { validateFiles } from '../validate/validate.js';
import { mergeTraces } from '../merge/merge.js';

const require = createRequire(import.meta.url);
const coreDir = dirname(require.resolve('@dftracer/core/package.json'));
const coreEntry = join(coreDir, 'dist', 'index.js');
const { dir, cleanup } = tempDir();
afterAll(cleanup);

if (!existsSync(coreEntry)) console.warn(`\n!!! ${coreEntry} is missing (build @dftracer/core first): SKIPPING the real-tracer test !!!\n`);

/** The traced program: sync, callback, promise and stream I/O under ./data, and a traced compute step. */
const PROGRAM = `
import { initializeLog, dftFn, finalize } from ${JSON.stringify(pathToFileURL(coreEntry).href)};
import fs from 'node:fs';
import { join } from 'node:path';
const [dataDir, logFile, compression] = process.argv.slice(2);
initializeLog({ enable: true, logFile, dataDir, compression: compression === 'gz', writeBufferSize: 4096 });
const io = dftFn('data');
const compute = dftFn('compute');
const write = io.log(function writeSamples() {
  for (let i = 0; i < 4; i++) fs.writeFileSync(join(dataDir, 'sample' + i + '.bin'), Buffer.alloc(10000 + i, i));
});
const load = io.log(async function loadAll() {
  // overlapping async reads: the tracer puts them on lanes
  const bufs = await Promise.all([0, 1, 2, 3].map((i) => fs.promises.readFile(join(dataDir, 'sample' + i + '.bin'))));
  return bufs.reduce((a, b) => a + b.length, 0);
});
const step = compute.log(function step(n) {
  let x = 0;
  for (let i = 0; i < 200000; i++) x += Math.sqrt(i * n);
  return x;
});
write();
const total = await load();
for (let s = 0; s < 5; s++) step(s + 1);
const fd = fs.openSync(join(dataDir, 'sample0.bin'), 'r');
const b = Buffer.alloc(4096);
fs.readSync(fd, b, 0, 4096, 100);
fs.closeSync(fd);
await new Promise((resolve) => fs.createReadStream(join(dataDir, 'sample1.bin')).on('data', () => {}).on('end', resolve));
finalize();
console.log(JSON.stringify({ total }));
`;

function runTraced(name: string, compression: 'gz' | 'plain'): string {
  const work = join(dir, name);
  const data = join(work, 'data');
  mkdirSync(data, { recursive: true });
  const script = join(work, 'app.mjs');
  writeFileSync(script, PROGRAM);
  const r = spawnSync(process.execPath, [script, data, join(work, 'trace'), compression], { encoding: 'utf8', cwd: work, env: { ...process.env, DFTRACER_ENABLE: '1' } });
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ total: 4 * 10000 + 6 });
  const traces = readdirSync(work).filter((f) => /^trace.*\.pfw(\.gz)?$/.test(f));
  expect(traces).toHaveLength(1);
  return join(work, traces[0]!);
}

describe.skipIf(!existsSync(coreEntry))('traces written by @dftracer/core', () => {
  it('validate clean, and summary counts the bytes the program moved', async () => {
    const gz = runTraced('gz', 'gz');
    const plain = runTraced('plain', 'plain');
    expect(gz).toMatch(/-app\.pfw\.gz$/);
    expect(plain).toMatch(/-app\.pfw$/);

    // exactly our layout: not a warning even under --strict (ids on metadata, num_events, "]")
    const v = await validateFiles([gz, plain], { threads: 0, strict: true });
    for (const f of v.files) {
      expect(f.problems, f.file).toEqual([]);
      expect(f.warnings, f.file).toEqual([]);
      expect(f.finished).toBe(true);
    }

    const s = await summarize([gz]);
    const byFile = Object.fromEntries(s.files.map((f) => [f.file.split('/').pop(), f]));
    // written once each by writeFileSync
    for (let i = 0; i < 4; i++) expect(byFile[`sample${i}.bin`]?.bytes_written).toBe(10000 + i);
    // read back: readFile of all four, 4096 bytes of sample0 by readSync, sample1 again by a stream
    expect(byFile['sample0.bin']!.bytes_read).toBe(10000 + 4096);
    expect(byFile['sample1.bin']!.bytes_read).toBe(2 * 10001);
    expect(byFile['sample2.bin']!.bytes_read).toBe(10002);
    // the same figures from an independent JSON.parse of the trace
    const x = readTrace(gz).events.filter((e) => e.ph === 'X');
    expect(s.events).toBe(x.length);
    const step = s.by_name.find((r) => r.name === 'step')!;
    expect(step.count).toBe(5);
    expect(step.total_us).toBe(x.filter((e) => e.name === 'step').reduce((a, e) => a + e.dur, 0));
    expect(s.totals.compute_us).toBeGreaterThan(0);
    expect(s.totals.io_us).toBeGreaterThan(0);

    // two processes' traces merge into one that still validates
    const merged = join(dir, 'merged.pfw.gz');
    await mergeTraces([gz, plain], merged);
    const mv = await validateFiles([merged], { threads: 0 });
    expect(mv.files[0]!.problems).toEqual([]);
    expect(mv.files[0]!.events).toBe(v.files[0]!.events + v.files[1]!.events);
  });
});
