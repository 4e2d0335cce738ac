import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns, compareSummaries, formatComparison, type Comparison } from './compare.js';
import { summarize } from '../summary/summary.js';
import { writeReport, type ReportData } from '../report/report.js';
import { REPORT_CLIENT } from '../report/report-client.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, NO_PROGRESS: '1' } });

/** Names kept one by one in each run. */
const KEPT = 5;

/** A run as written: each name's calls, all of one duration (name → [calls, µs each]). */
type Run = Record<string, [number, number]>;

// X is in A's top 5 (700 µs) but below B's (330 µs; eight heavier names there); b0 is below A's
// top 5 but heads B's; a1 and a3 run only in A, b1…b7 only in B; the l* names are light in each
const A: Run = { a0: [2, 600], a1: [2, 550], a2: [1, 1000], a3: [3, 300], X: [7, 100], b0: [2, 20], lA0: [1, 10], lA1: [1, 11], lA2: [1, 12], lA3: [1, 13] };
const B: Run = { b0: [5, 400], b1: [1, 1900], b2: [2, 900], b3: [1, 1700], b4: [4, 400], b5: [1, 1500], b6: [1, 1400], b7: [1, 1300], X: [11, 30], a0: [3, 50], a2: [1, 120], lB0: [1, 5], lB1: [1, 6], lB2: [1, 7] };
// a run that keeps every name it has: X, and c0 that no other run has
const C: Run = { X: [4, 250], c0: [2, 75] };

/** Every call after the last on one thread: no nesting, no overlap, so self time = sum of spans. */
function writeRun(path: string, pid: number, names: Run): string {
  const w = new TraceWriter({ path, pid });
  w.header();
  const t0 = 1_700_000_000_000_000;
  w.start(t0);
  let t = t0 + 10;
  for (const [name, [calls, dur]] of Object.entries(names))
    for (let i = 0; i < calls; i++) {
      w.complete(name, 'app', t, dur);
      t += dur + 1;
    }
  w.end(t);
  w.close();
  return path;
}

const total = (r: Run, n: string) => (r[n] ? r[n][0] * r[n][1] : 0);
/** The top `KEPT` names of a run by time, from what was written (every total is distinct). */
const topNames = (r: Run) => Object.keys(r).sort((x, y) => total(r, y) - total(r, x)).slice(0, KEPT);

/** Each listed name's figures in both runs are the written ones (0 calls where it never ran). */
function expectTrue(c: Comparison, base: Run, variant: Run): void {
  for (const n of c.names)
    expect(n).toEqual({
      cat: 'app',
      name: n.name,
      base_count: base[n.name]?.[0] ?? 0,
      base_self_us: total(base, n.name),
      base_total_us: total(base, n.name),
      variant_count: variant[n.name]?.[0] ?? 0,
      variant_self_us: total(variant, n.name),
      variant_total_us: total(variant, n.name),
      delta_us: total(variant, n.name) - total(base, n.name),
    });
}

/** Each run's other-names row is what it wrote under the names not listed. */
function expectOthers(c: Comparison, base: Run, variant: Run): void {
  const listed = new Set(c.names.map((n) => n.name));
  const rest = (r: Run) => {
    const names = Object.keys(r).filter((n) => !listed.has(n));
    return { names: names.length, count: names.reduce((s, n) => s + r[n]![0], 0), total_us: names.reduce((s, n) => s + total(r, n), 0) };
  };
  expect(c.other_names).toEqual({ base: rest(base), variant: rest(variant) });
}

describe('compare lists names with exact figures from both runs', () => {
  let a: string;
  let b: string;
  let c: string;
  beforeAll(() => {
    a = writeRun(join(dir, 'a.pfw.gz'), 100, A);
    b = writeRun(join(dir, 'b.pfw.gz'), 200, B);
    c = writeRun(join(dir, 'c.pfw.gz'), 300, C);
  });

  it("a name in one run's top names and below the other's: both runs' true calls and time", async () => {
    const { comparison } = await compareRuns([a], [b], { threads: 1, namesKept: KEPT });
    const union = new Set([...topNames(A), ...topNames(B)]);
    expect(union.size).toBe(10);
    // every name of the union changed, so all are listed (the default lists 20)
    expect(new Set(comparison.names.map((n) => n.name))).toEqual(union);
    expectTrue(comparison, A, B);
    expect(comparison.names.find((n) => n.name === 'X')).toMatchObject({ base_count: 7, base_self_us: 700, variant_count: 11, variant_self_us: 330 });
    // below A's top names, b0 still has A's 2 calls; b1 and a1 ran in one run only
    expect(comparison.names.find((n) => n.name === 'b0')).toMatchObject({ base_count: 2, base_self_us: 40, variant_count: 5 });
    expect(comparison.names.find((n) => n.name === 'b1')).toMatchObject({ base_count: 0, variant_count: 1 });
    expect(comparison.names.find((n) => n.name === 'a1')).toMatchObject({ base_count: 2, variant_count: 0 });
    expectOthers(comparison, A, B);
    const text = formatComparison(comparison, { labels: ['A', 'B'] });
    expect(text).toMatch(/^app\s+X\s+700 µs\s+330 µs\s+−370 µs\s+7 → 11$/m);
    expect(text).toMatch(/^Other names .*: A 4 names, 4 calls, sum of spans 46 µs; B 6 names, 6 calls, sum of spans 4\.22 ms$/m);
  });

  it('summaries kept apart, each with its own top names, would not list what they cannot both tell', async () => {
    const sa = await summarize([a], { threads: 1, namesKept: KEPT });
    const sb = await summarize([b], { threads: 1, namesKept: KEPT });
    const cmp = compareSummaries(sa, sb);
    // X and b0..b4 are each below one run's top names: not listed, but counted in that run's row
    expect(cmp.names.map((n) => n.name).sort()).toEqual([]);
    expectTrue(cmp, A, B);
    expectOthers(cmp, A, B);
  });

  it('a run that kept every name it has: a name of the other run only is absent there, truly', async () => {
    for (const [base, variant, rb, rv] of [[c, b, C, B], [b, c, B, C]] as const) {
      const { comparison } = await compareRuns([base], [variant], { threads: 1, namesKept: KEPT });
      expect(new Set(comparison.names.map((n) => n.name))).toEqual(new Set([...topNames(rb), ...topNames(rv)]));
      expectTrue(comparison, rb, rv);
      expectOthers(comparison, rb, rv);
    }
  });

  it('from the command line: --names N for both runs, --top N names listed, the rest in the other rows', () => {
    const r = run(['compare', '--json', '--names', String(KEPT), '--top', '3', a, b]);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout) as Comparison;
    expect(j.names).toHaveLength(3);
    expectTrue(j, A, B);
    expectOthers(j, A, B);
    const bad = run(['compare', '--names', 'many', a, b]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--names must be an integer ≥ 0 \(got "many"\)/);
  });

  it("report --compare: this run's tables and the comparison keep both runs' top names", async () => {
    const out = join(dir, 'a.html');
    await writeReport([a], out, { threads: 1, namesKept: KEPT, compareWith: [b] });
    const json = /<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(readFileSync(out, 'utf8'))![1]!;
    const data = JSON.parse(json) as ReportData;
    expect(new Set(data.comparison!.names.map((n) => n.name))).toEqual(new Set([...topNames(A), ...topNames(B)]));
    expectTrue(data.comparison!, A, B);
    expectOthers(data.comparison!, A, B);
    // this run's names table: its own top names and B's that it has (b0), with its own figures
    expect(data.summary.by_name.filter((n) => n.cat !== 'dftracer').map((n) => [n.name, n.count, n.total_us])).toEqual(
      [...topNames(A), 'b0'].map((n) => [n, A[n]![0], total(A, n)]),
    );
    expect(data.summary.names_left_out).toEqual({ names: 4, count: 4, total_us: 10 + 11 + 12 + 13 });
    // the page's script (with the comparison's other-names row) parses
    expect(() => new Function(REPORT_CLIENT)).not.toThrow();
  });
});
