/**
 * Nothing read short: on a corpus of valid traces of every shape a writer makes — gzip members from
 * one line to 1 MiB, many small members (the shape on which DuckDB's own gzip reader stops early),
 * real @dftracer/core traces with counters every 1 and 5 ms, appended runs, plain files — every
 * command's event count equals validate's and the count of `"ph":"X"` records the test finds in
 * the file itself (decompressed with zlib).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { compareSummaries } from '../compare/compare.js';
import { Duck, loadTraces } from '../read/duck.js';
import { exportPerfetto } from '../export/export-perfetto.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { mergeTraces } from '../merge/merge.js';
import { queryTraces } from '../query/query.js';
import { reportData } from '../report/report.js';
import { summarize } from '../summary/summary.js';
import { prng, writeSyntheticTrace } from '../test-util/synthetic.test-util.js';
import { validateFiles } from '../validate/validate.js';

const require = createRequire(import.meta.url);
const coreEntry = join(dirname(require.resolve('@dftracer/core/package.json')), 'dist', 'index.js');
const upstream = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'upstream');
const { dir, cleanup } = tempDir('dftracer-corpus-');
afterAll(cleanup);

/** The file's own content, decompressed by zlib (every member) when it is gzip. */
function text(file: string): string {
  const b = readFileSync(file);
  return (b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString('utf8');
}

/** Complete events in a trace, counted from its text: lines with `"ph":"X"`. */
function eventsIn(file: string): number {
  return text(file).split('\n').filter((l) => /"ph":\s*"X"/.test(l)).length;
}

/** The lines of a plain trace as gzip members of `sizes()` lines each. */
function remember(lines: string[], out: string, sizes: () => number): number {
  const parts: Buffer[] = [];
  for (let i = 0; i < lines.length; ) {
    const k = Math.max(1, sizes());
    parts.push(gzipSync(`${lines.slice(i, i + k).join('\n')}\n`, { level: 1 }));
    i += k;
  }
  writeFileSync(out, Buffer.concat(parts));
  return parts.length;
}

/** Lines of a synthetic (valid) trace of about `events` events. */
function syntheticLines(events: number, seed: number): string[] {
  const p = join(dir, `lines-${events}-${seed}.pfw`);
  writeSyntheticTrace({ path: p, events, seed });
  return readFileSync(p, 'utf8').split('\n').slice(0, -1);
}

/** A program traced by the real @dftracer/core with counters every `ms` ms: many small members. */
const PROGRAM = `
import { initializeLog, dftFn, counter, finalize } from ${JSON.stringify(pathToFileURL(coreEntry).href)};
const [logFile, ms] = process.argv.slice(2);
initializeLog({ enable: true, logFile, countersIntervalMs: Number(ms) });
const step = dftFn('compute', 'step');
const sleep = (t) => new Promise((r) => setTimeout(r, t));
for (let i = 0; i < 60; i++) {
  const r = step.start({ step: i });
  let x = 0;
  for (let j = 0; j < 20000; j++) x += Math.sqrt(j);
  await sleep(4);
  counter('loss', 'train', { value: 1 / (i + 1) });
  r.stop();
}
await finalize();
`;

function traceWithCore(name: string, ms: number): string {
  const work = join(dir, name);
  mkdirSync(work, { recursive: true });
  const script = join(work, 'app.mjs');
  writeFileSync(script, PROGRAM);
  const r = spawnSync(process.execPath, [script, join(work, 'trace'), String(ms)], { encoding: 'utf8', cwd: work, env: { ...process.env, DFTRACER_ENABLE: '1' } });
  if (r.status !== 0) throw new Error(`the traced program failed: ${r.stderr}`);
  return join(work, readdirSync(work).find((f) => f.endsWith('.pfw.gz'))!);
}

/** Gzip members in a file. */
function members(file: string): number {
  const b = readFileSync(file);
  let n = 0;
  for (let i = 0; i + 2 < b.length; i++) if (b[i] === 0x1f && b[i + 1] === 0x8b && b[i + 2] === 8) n++;
  return n; // an upper bound (the magic can occur inside deflate data); enough to say "many"
}

/** The corpus, built as the file is collected (`it.each` needs its names then). */
function buildCorpus(): Record<string, string> {
  const corpus: Record<string, string> = {};
  // The shape of the reported bug: many members of 1–3 lines. On this layout DuckDB's own gzip
  // reader stops early (asserted below), silently.
  const bug = syntheticLines(1500, 7);
  corpus['small members (the reported shape)'] = join(dir, 'bug-shape.pfw.gz');
  remember(bug, corpus['small members (the reported shape)']!, ((r) => () => 1 + Math.floor(r() * 3))(prng(42)));

  const lines = syntheticLines(6000, 3);
  corpus['one line a member'] = join(dir, 'one-line.pfw.gz');
  remember(lines.slice(0, 1200), corpus['one line a member']!, () => 1);
  const mib = syntheticLines(12000, 5);
  corpus['1 MiB members'] = join(dir, 'mib.pfw.gz');
  writeSyntheticTrace({ path: corpus['1 MiB members']!, events: 12000, seed: 5, memberBytes: 1 << 20 });
  corpus['members from one line to 1 MiB'] = join(dir, 'mixed.pfw.gz');
  const r = prng(9);
  remember(mib, corpus['members from one line to 1 MiB']!, () => (r() < 0.5 ? 1 + Math.floor(r() * 4) : Math.floor(r() * 5200)));

  corpus['plain file'] = join(dir, 'plain.pfw');
  writeSyntheticTrace({ path: corpus['plain file']!, events: 3000, seed: 11 });
  corpus['two appended runs'] = join(dir, 'appended.pfw.gz');
  writeSyntheticTrace({ path: corpus['two appended runs']!, events: 2000, seed: 12, pid: 100, memberBytes: 4096 });
  writeSyntheticTrace({ path: corpus['two appended runs']!, events: 2000, seed: 13, pid: 200, memberBytes: 4096, append: true, t0: 1760934180000000 });
  corpus['DFTracer 2024 appended runs'] = join(upstream, '2024-appended-runs.pfw.gz');
  corpus['DLIO 2023 appended runs'] = join(upstream, '2023-appended-runs.pfw');
  if (existsSync(coreEntry)) {
    corpus['@dftracer/core, counters every 5 ms'] = traceWithCore('core5', 5);
    corpus['@dftracer/core, counters every 1 ms'] = traceWithCore('core1', 1);
  }
  return corpus;
}
const corpus = buildCorpus();

describe('every command reads every record', () => {
  it('the reported shape makes DuckDB\'s own gzip reader stop early (why the traces are staged)', async () => {
    const file = corpus['small members (the reported shape)']!;
    expect(members(file)).toBeGreaterThan(500);
    const lines = text(file).split('\n').length - 1;
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const sql = `SELECT count(*) FROM read_csv('${file}', columns = {'l': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '', auto_detect = false, compression = 'gzip')`;
      const read = Number((await conn.runAndReadAll(sql)).getRowsJS()[0]![0]);
      // DuckDB 1.5.6 reads 1,271 of these 1,574 lines; if it ever reads them all, this test's
      // fixture no longer shows the bug, not the analyzer
      expect(read).toBeLessThan(lines);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });

  it.each(Object.keys(corpus))('%s: validate, summary, merge, query, export, report and compare count the file\'s events', async (name) => {
    const file = corpus[name]!;
    const truth = eventsIn(file);
    expect(truth).toBeGreaterThan(10);

    const v = await validateFiles([file], { threads: 1 });
    expect(v.events).toBe(truth);

    const s = await summarize([file], { threads: 2 });
    expect(s.events).toBe(truth);
    expect(s.warnings).toEqual([]);

    const merged = join(dir, `${name.replace(/\W+/g, '-')}-merged.pfw.gz`);
    const m = await mergeTraces([file], merged);
    expect(m.events).toBe(truth);
    expect(eventsIn(merged)).toBe(truth);

    const q = await queryTraces("SELECT count(*) AS n FROM events", [file], { threads: 2 });
    expect(Number(q.rows[0]![0])).toBe(truth);

    const out = join(dir, `${name.replace(/\W+/g, '-')}.json`);
    const e = await exportPerfetto([file], out, { threads: 2 });
    expect(e.events).toBe(truth);
    expect((readFileSync(out, 'utf8').match(/"ph":"X"/g) ?? []).length).toBe(truth);

    const duck = await Duck.open({ threads: 2 });
    try {
      await loadTraces(duck, [file]);
      expect((await reportData(duck, [file])).summary.events).toBe(truth);
    } finally {
      duck.close();
    }

    const c = compareSummaries(s, await summarize([file], { threads: 2 }));
    expect(c.figures.find((f) => f.figure.startsWith('wall'))?.delta).toBe(0);
  }, 120_000);
});
