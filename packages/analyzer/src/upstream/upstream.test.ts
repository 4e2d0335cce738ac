/**
 * Genuine DFTracer layouts: the committed fixtures (made by `upstream.test-util.ts`, and
 * pydftracer's own v1.0.15 example verbatim) and, when the shared data is beside the clone, the
 * real upstream traces in `../shared/data/upstream-samples`. `validate` accepts them with the
 * expected warnings and fails them under --strict; `summary` gives exact byte totals.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readAppendedTrace } from '@dftracer/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { exportPerfetto } from '../export/export-perfetto.js';
import { mergeTraces } from '../merge/merge.js';
import { queryTraces } from '../query/query.js';
import { writeReport } from '../report/report.js';
import { summarize } from '../summary/summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';
import { SEED_FIXTURE, rstCodeBlock, writeUpstreamFixtures, type UpstreamFixture } from './upstream.test-util.js';
import { validateFiles } from '../validate/validate.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = resolve(HERE, '..', '..', 'fixtures', 'upstream');
/** `shared/` beside the repository's root (CI checks it out at ../shared). */
const SHARED = resolve(HERE, '..', '..', '..', '..', '..', 'shared');
const SEEDS = join(SHARED, 'seeds');
const SAMPLES = join(SHARED, 'data', 'upstream-samples');
const CLI = join(HERE, '..', '..', 'dist', 'cli.js');

const { dir, cleanup } = tempDir();
afterAll(cleanup);

function text(file: string): string {
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
}

function cli(...args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

const generated = writeUpstreamFixtures(dir);
const fixtures: UpstreamFixture[] = [...generated.map((f) => ({ ...f, file: join(FIXTURES, f.file.slice(dir.length + 1)) })), { ...SEED_FIXTURE, file: join(FIXTURES, SEED_FIXTURE.file) }];

describe('committed upstream-layout fixtures', () => {
  it('are what the test helpers write', () => {
    for (const g of generated) {
      const committed = join(FIXTURES, g.file.slice(dir.length + 1));
      expect(existsSync(committed), committed).toBe(true);
      expect(text(committed), committed).toBe(text(g.file));
    }
  });

  it.skipIf(!existsSync(SEEDS))('the seed fixture is pydftracer’s v1.0.15 example, verbatim (skipped when ../shared/seeds is not beside the clone)', () => {
    const seed = readdirSync(SEEDS).find((f) => f.startsWith('000_'))!;
    expect(readFileSync(join(FIXTURES, SEED_FIXTURE.file), 'utf8')).toBe(rstCodeBlock(readFileSync(join(SEEDS, seed), 'utf8')));
  });

  for (const f of fixtures) {
    const name = f.file.slice(FIXTURES.length + 1);
    it(`${name}: valid with the expected warnings; an error under --strict`, async () => {
      const r = await validateFiles([f.file], { threads: 0 });
      const v = r.files[0]!;
      expect(v.problems, JSON.stringify(v.problems)).toEqual([]);
      expect(v.events).toBe(f.events);
      expect(v.runs).toBe(f.runs ?? 1);
      for (const w of f.warnings) expect(v.warnings.some((x) => x.includes(w)), `${w} in ${JSON.stringify(v.warnings)}`).toBe(true);
      expect(v.warnings.length).toBe(f.warnings.length);
      const strict = (await validateFiles([f.file], { threads: 0, strict: true })).files[0]!;
      expect(strict.problems.map((g) => g.kind)).toEqual(['strict']);
      expect(strict.problems[0]!.count).toBe(f.warnings.length);
    });

    it(`${name}: summary gives exact byte totals`, async () => {
      const s = await summarize([f.file], { threads: 1 });
      expect(s.events).toBe(f.events);
      expect(s.bytes_read).toBe(f.bytesRead);
      expect(s.bytes_written).toBe(f.bytesWritten);
    });
  }

  it('the CLI: validate exits 0 with warnings, --strict exits 1, summary --json names files from FH or fname', () => {
    const ok = cli('validate', FIXTURES);
    expect(ok.code, ok.out).toBe(0);
    // 9 older layouts, each with warnings; the DFTracer 2.2 fixtures (upstream22.test.ts: a run and a mixed directory of 2) with none
    expect(ok.out).toMatch(/valid: 12 files, [\d,]+ events and [\d,]+ metadata and counter records checked, no problems, \d+ warnings/);
    const strict = cli('validate', '--strict', FIXTURES);
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/invalid: \d+ problems in 9 of 12 files \(strict \d+\)/);
    const s2023 = JSON.parse(cli('summary', '--json', join(FIXTURES, '2023-string-numbers.pfw')).out) as { files: { file: string; bytes_read: number; bytes_written: number }[] };
    expect(s2023.files.map((x) => [x.file, x.bytes_read, x.bytes_written])).toEqual([
      ['/p/out/ckpt.pt', 0, 65536],
      ['/p/data/img_001.npz', 5096, 0],
    ]);
    const s2024 = JSON.parse(cli('summary', '--json', join(FIXTURES, '2024-integer-hashes.pfw.gz')).out) as { files: { file: string; bytes_written: number }[] };
    expect(s2024.files[0]).toMatchObject({ file: '/p/lustre/cm1/cm1out_000001.nc', bytes_written: 1572864 });
  });

  describe('appended runs', () => {
    const appended = fixtures.filter((f) => (f.runs ?? 1) > 1);
    /** Events and bytes by @dftracer/testing's reader (JSON.parse per line), not the analyzer's. */
    const independent = (file: string) => {
      const t = readAppendedTrace(file);
      const ret = (e: { args: Record<string, unknown> }) => Math.max(0, Number(e.args?.ret ?? 0)) * (e.args?.size !== undefined ? Number(e.args.size) : 1);
      const sum = (names: string[]) => t.complete.filter((e) => names.includes(e.name)).reduce((a, e) => a + ret(e), 0);
      return { events: t.complete.length, read: sum(['read', 'pread', 'fread']), written: sum(['write', 'pwrite', 'fwrite']) };
    };

    it('the fixtures hold several runs whose ids start again', () => {
      expect(appended.map((f) => f.file.slice(FIXTURES.length + 1))).toEqual(['2023-appended-runs.pfw', '2024-appended-runs.pfw.gz', '2025-concatenated.pfw.gz']);
      for (const f of appended) {
        const ids = readAppendedTrace(f.file).complete.map((e) => Number(e.id));
        expect(new Set(ids).size, f.file).toBeLessThan(ids.length);
      }
    });

    for (const f of appended) {
      const name = f.file.slice(FIXTURES.length + 1);
      it(`${name}: summary --json counts every run's events and bytes exactly`, () => {
        const want = independent(f.file);
        expect(want.events).toBe(f.events);
        const r = cli('summary', '--json', f.file);
        expect(r.code, r.out).toBe(0);
        const s = JSON.parse(r.out) as { events: number; bytes_read: number; bytes_written: number };
        expect([s.events, s.bytes_read, s.bytes_written]).toEqual([want.events, want.read, want.written]);
      });
    }

    it('query and export see every record of every run; summary names each run’s host (no line lost after a "[" or "]")', async () => {
      for (const f of appended) {
        const t = readAppendedTrace(f.file);
        const q = await queryTraces('SELECT (SELECT count(*) FROM events) AS e, (SELECT count(*) FROM metadata) AS m', [f.file], { threads: 1 });
        expect(q.rows[0], f.file).toEqual([t.complete.length, t.meta.length]);
        const p = await exportPerfetto([f.file], join(dir, 'appended.json'), { threads: 1 });
        expect(p.events, f.file).toBe(t.complete.length);
        const s = await summarize([f.file], { threads: 1 });
        const hosts = new Set(t.meta.filter((m) => m.name === 'HH').map((m) => `${m.pid}`));
        for (const proc of s.per_process) if (hosts.has(String(proc.pid))) expect(proc.host, `${f.file} pid ${proc.pid}`).not.toBeNull();
      }
    });

    it('merge gives each run its own ids: none repeats on a thread, and the result is one run', async () => {
      for (const f of appended) {
        const out = join(dir, 'appended-merged.pfw');
        const r = await mergeTraces([f.file], out);
        expect(r.events).toBe(f.events);
        const t = readAppendedTrace(out);
        const byTrack = new Map<string, number[]>();
        for (const e of t.complete) byTrack.set(`${e.pid}/${e.tid}`, [...(byTrack.get(`${e.pid}/${e.tid}`) ?? []), Number(e.id)]);
        for (const [track, ids] of byTrack) expect(new Set(ids).size, `${f.file} ${track}`).toBe(ids.length);
        const v = (await validateFiles([out], { threads: 0 })).files[0]!;
        expect(v.problems, JSON.stringify(v.problems)).toEqual([]);
        expect(v.runs, f.file).toBe(1);
      }
    });

    it('validate names the line where the next run starts; the CLI exits 0, and 1 under --strict', () => {
      const f = appended[0]!;
      const lines = text(f.file).split('\n');
      const second = lines.findIndex((l, i) => i > 1 && /"id":"0"/.test(l)) + 1;
      const r = cli('validate', f.file);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`ids start again: traces of several runs appended in one file, each run checked on its own (2 times, first on line ${second})`);
      expect(cli('validate', '--strict', f.file).code).toBe(1);
    });
  });

  it('merge keeps every record of every layout, ids unique, and the result validates', async () => {
    const out = join(dir, 'merged.pfw.gz');
    const r = await mergeTraces(fixtures.map((f) => f.file), out);
    expect(r.events).toBe(fixtures.reduce((a, f) => a + f.events, 0));
    const v = (await validateFiles([out], { threads: 0 })).files[0]!;
    expect(v.problems, JSON.stringify(v.problems)).toEqual([]);
    expect(v.events).toBe(r.events);
    expect(text(out).endsWith('\n]\n')).toBe(true);
  });

  it('report: a track label names the process once; upstream’s swapped thread_name is no name', async () => {
    const path = join(dir, 'ours.pfw');
    const w = new TraceWriter({ path, pid: 8234 });
    w.header();
    w.processName('app.mjs (8234)');
    w.start(1_760_934_169_561_452);
    w.complete('step', 'compute', 1_760_934_169_561_500, 10);
    w.end(1_760_934_169_561_600);
    w.close();
    const html = join(dir, 'labels.html');
    await writeReport([path, join(FIXTURES, SEED_FIXTURE.file)], html, { threads: 1 });
    const labels = [...readFileSync(html, 'utf8').matchAll(/"label":"([^"]*)"/g)].map((m) => m[1]);
    expect(labels).toContain('app.mjs (8234) · main');
    expect(labels).toContain('pid 3200613 · main');
    expect(labels.join()).not.toMatch(/\(8234\) \(8234\)/);
  });

  it('the seed example: dynamo kernels are compute; the process and its files resolve', async () => {
    const s = await summarize([join(FIXTURES, SEED_FIXTURE.file)], { threads: 1 });
    const p = s.per_process[0]!;
    expect(p.host).toBe('tuolumne1004');
    // the 8 function.* kernels, back to back: their union
    expect(p.compute_us).toBe(22746 + 289 + 10524 + 3 + 2 + 34 + 70 + 284);
    expect(p.io_us).toBe(0);
  });
});

describe('I/O vs compute vs other', () => {
  const loop = (opts: { computeCats?: string[] } = {}) => {
    const path = join(dir, 'loop.pfw');
    const w = new TraceWriter({ path, pid: 7 });
    w.header();
    w.start(1000);
    const epoch = w.begin('epoch', 'pipeline', 1010);
    let t = 1100;
    for (let i = 0; i < 10; i++) {
      // a long wait for the next batch, then a short compute span (two kernels overlap on a lane)
      w.complete('loop.iter', 'data_loader', t, 1000);
      const step = w.complete('TorchFramework.compute', 'ai_framework', t + 1000, 100);
      w.complete('function.Conv2D', 'dynamo', t + 1020, 50, { tid: 7 * 16 + 1, parent: step });
      t += 1200;
    }
    w.exit(epoch, t);
    w.end(t + 10);
    w.close();
    return summarize([path], { threads: 1, ...opts });
  };

  it('compute is the union of the compute spans, other the loop waits (and the epoch around them)', async () => {
    const p = (await loop()).per_process[0]!;
    expect(p.compute_us).toBe(10 * 100);
    expect(p.io_us).toBe(0);
    // waits 10 × 1000, plus the epoch's own time between iterations: 90 before the first, 100 after each
    expect(p.other_us).toBe(10 * 1000 + 90 + 10 * 100);
    expect(p.idle_us).toBe(p.wall_us - p.compute_us - p.other_us);
  });

  it('--compute-cats makes a category compute', async () => {
    const p = (await loop({ computeCats: ['data_loader'] })).per_process[0]!;
    expect(p.compute_us).toBe(10 * 1100);
    expect(p.other_us).toBe(90 + 10 * 100);
  });
});

describe.skipIf(!existsSync(SAMPLES))('real DFTracer traces (skipped when ../shared/data/upstream-samples is not beside the clone)', () => {
  const samples = existsSync(SAMPLES) ? readdirSync(SAMPLES).filter((f) => f.endsWith('.pfw.gz')).map((f) => join(SAMPLES, f)) : [];

  /** An independent count: JSON.parse per line, bytes from ret of read/write calls. */
  const independent = (file: string) => {
    let read = 0;
    let written = 0;
    let events = 0;
    for (const l of text(file).split('\n')) {
      const s = l.trim();
      if (s === '' || s === '[' || s === ']') continue;
      const o = JSON.parse(s) as { ph: string; name: string; args?: { ret?: number; size?: number } };
      if (o.ph !== 'X') continue;
      events++;
      const ret = Math.max(0, o.args?.ret ?? 0) * (o.name === 'fread' || o.name === 'fwrite' ? (o.args?.size ?? 1) : 1);
      if (['read', 'pread', 'pread64', 'readv', 'fread'].includes(o.name)) read += ret;
      if (['write', 'pwrite', 'pwrite64', 'writev', 'fwrite'].includes(o.name)) written += ret;
    }
    return { read, written, events };
  };

  it('validate accepts every one with warnings only; --strict fails them', async () => {
    expect(samples.length).toBeGreaterThan(0);
    const r = await validateFiles(samples, { threads: 0 });
    for (const f of r.files) {
      expect(f.problems, f.file).toEqual([]);
      expect(f.finished).toBe(true);
      expect(f.warnings.length).toBeGreaterThan(0);
    }
    const strict = await validateFiles(samples, { threads: 0, strict: true });
    for (const f of strict.files) expect(f.problems.map((g) => g.kind)).toEqual(['strict']);
  });

  it('summary: exact bytes, events, and DLIO’s compute is its compute spans, not its loop waits', async () => {
    for (const file of samples) {
      const s = await summarize([file], { threads: 1 });
      const want = independent(file);
      expect(s.events, file).toBe(want.events);
      expect(s.bytes_read, file).toBe(want.read);
      expect(s.bytes_written, file).toBe(want.written);
      if (file.includes('dlio')) {
        const p = s.per_process[0]!;
        const spans = s.by_name.find((n) => n.name === 'TorchFramework.compute')!;
        expect(p.compute_us).toBe(spans.total_us); // the spans do not overlap one another
        expect(p.compute_us).toBeLessThan(0.65 * p.wall_us);
        expect(p.other_us).toBeGreaterThan(0);
      }
    }
  });
});
