/**
 * What the analysis says is true or says what it lacks: a verdict names the largest share, a view
 * one side of `compare` lacks is said (never −100 %), no escape sequence from a trace reaches the
 * terminal, the tracer's async lanes are counted as lanes. Expected figures are the traces' own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSummaries, formatComparison } from '../compare/compare.js';
import { renderTable } from '../format/table.js';
import { terminalSafe } from '../format/terminal-safe.js';
import { formatQueryResult, type QueryResult } from '../query/query.js';
import { summarize, formatSummary } from '../summary/summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';
import { writeTrainingTrace } from '../test-util/training.test-util.js';
import { verdict } from '../summary/verdict.js';
import type { PhaseFigures } from '../summary/phases.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, NO_PROGRESS: '1' } });

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const fig = (f: Partial<PhaseFigures>): PhaseFigures => ({ wall_us: 0, compute_us: 0, io_us: 0, wait_us: 0, overlap_us: 0, io_only_us: 0, other_us: 0, idle_us: 0, bytes_read: 0, ...f });

describe('verdict', () => {
  it('names the largest share, then the next ones of at least 10 %', () => {
    // the reported epoch: 63 % compute, 36 % data wait was called I/O-bound
    expect(verdict(fig({ wall_us: 1000, compute_us: 630, wait_us: 360, idle_us: 10 }))).toBe('compute-bound: 63 % computing, 36 % waiting on data');
    expect(verdict(fig({ wall_us: 1000, compute_us: 360, wait_us: 630, idle_us: 10 }))).toBe('data-bound: 63 % waiting on data, 36 % computing');
    expect(verdict(fig({ wall_us: 1000, compute_us: 200, io_only_us: 450, other_us: 150, idle_us: 200 }))).toBe('I/O-bound: 45 % in I/O outside compute, 20 % computing, 20 % with nothing traced running');
    expect(verdict(fig({ wall_us: 1000, compute_us: 50, idle_us: 950 }))).toBe('idle: 95 % with nothing traced running');
    expect(verdict(fig({ wall_us: 1000, other_us: 700, compute_us: 300 }))).toBe('other-bound: 70 % in other traced work, 30 % computing');
    expect(verdict(fig({ wall_us: 0 }))).toBe('');
  });
});

describe('terminalSafe', () => {
  it('removes escape sequences and control characters, keeps the text and line breaks', () => {
    expect(terminalSafe('\u001b[31mred\u001b[0m name')).toBe('red name');
    expect(terminalSafe('a\u001b]0;owned\u0007b')).toBe('ab');
    expect(terminalSafe('a\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\b')).toBe('alinkb');
    expect(terminalSafe('x\u0008\u0008y\u009b2Jz\u007f\r')).toBe('xyz');
    expect(terminalSafe('one\ntwo\tthree')).toBe('one\ntwo three');
    expect(terminalSafe('one\ntwo', { oneLine: true })).toBe('one two');
    expect(terminalSafe('épreuve µs → ✓')).toBe('épreuve µs → ✓');
    expect(terminalSafe('a\u202eevil\u202c.bin\u2066')).toBe('aevil.bin');
  });

  it('keeps every table, query results included, one line per row without escapes', () => {
    const t = renderTable(['\u001b[2Jname', 'n'], [['a\nb\u001b[31m', '1']]);
    expect(t.split('\n')).toEqual(['name  n', '────  ─', 'a b   1']);
    const q = formatQueryResult({ columns: ['\u001b]0;x\u0007name'], rows: [['\u001b[31mred\u001b[0m']] } satisfies QueryResult, 'table');
    expect(q).not.toMatch(CONTROL);
    expect(q).toMatch(/^name\n─+\nred\n\(1 row\)$/);
  });
});

describe('a trace with escape sequences in its names', () => {
  let path: string;
  beforeAll(() => {
    path = join(dir, 'ansi.pfw.gz');
    const w = new TraceWriter({ path, pid: 7 });
    w.header();
    w.processName('\u001b]0;pwned\u0007app');
    w.start(1000);
    const f = w.fileHash('/data/\u001b[2Jclear\nme.bin');
    w.complete('\u001b[31mforward\u001b[0m', 'compute', 1010, 100);
    w.complete('read', 'POSIX', 1110, 50, { args: { fhash: f, count: 10, ret: 10 } });
    w.complete('x', '\u001b[1mcat\u0007', 1200, 10);
    w.end(1300);
    w.close();
  });

  it('reaches the terminal without them, in every view', async () => {
    const s = await summarize([path], { threads: 1 });
    // the data keeps the names as written (--json is not a terminal)
    expect(s.by_name.map((n) => n.name)).toContain('\u001b[31mforward\u001b[0m');
    for (const text of [formatSummary(s), formatSummary(s, { files: true }), formatSummary(s, { by: 'step' })]) expect(text).not.toMatch(CONTROL);
    expect(formatSummary(s)).toMatch(/^compute\s+forward\s+1\s/m);
    expect(formatSummary(s)).toMatch(/^cat\s+x\s+1\s/m);
    expect(formatSummary(s, { files: true })).toMatch(/\/data\/clear me\.bin/);
    const r = run(['summary', path]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toMatch(/^\s*7\s+app\s/m);
    const c = formatComparison(compareSummaries(s, s), { labels: ['\u001b[31mbase', 'variant'] });
    expect(c).not.toMatch(CONTROL);
  });
});

describe('compare when one run lacks a view', () => {
  it('says which run has no epochs or steps, never a −100 % change', async () => {
    const withEpochs = join(dir, 'epochs.pfw.gz');
    writeTrainingTrace({ path: withEpochs, layout: 'ours', pid: 100 });
    // the same kind of work with no epoch spans and no step args
    const flat = join(dir, 'flat.pfw.gz');
    const w = new TraceWriter({ path: flat, pid: 200 });
    w.header();
    w.start(0);
    w.complete('fetch', 'dataloader', 10, 300);
    w.complete('forward', 'compute', 310, 500);
    w.end(1000);
    w.close();
    const a = await summarize([withEpochs], { threads: 1 });
    const b = await summarize([flat], { threads: 1 });
    expect(a.phases.epochs).toHaveLength(2);
    expect(b.phases.epochs).toHaveLength(0);
    expect(b.phases.median_step).toBeNull();
    const c = compareSummaries(a, b);
    const row = (name: string) => c.figures.find((f) => f.figure === name)!;
    // the base's epochs: 500 µs each (training.test-util's layout)
    expect(row('mean wall of an epoch')).toMatchObject({ base: 500, variant: null, delta: null, ratio: null, view: 'epochs', missing: ['variant'] });
    // its steps: walls 250, 150, 500; waits 100, 20, 400
    expect(row('median wall of a step')).toMatchObject({ base: 250, variant: null, delta: null, missing: ['variant'] });
    expect(row('median data wait of a step')).toMatchObject({ base: 100, variant: null, missing: ['variant'] });
    const text = formatComparison(c, { labels: ['A', 'B'] });
    expect(text).toMatch(/mean wall of an epoch\s+500 µs\s+–\s+no epochs in B/);
    expect(text).toMatch(/median wall of a step\s+250 µs\s+–\s+no steps in B/);
    expect(text).not.toMatch(/(epoch|step).*100%/);
    // reversed: the base lacks them
    expect(formatComparison(compareSummaries(b, a), { labels: ['B', 'A'] })).toMatch(/mean wall of an epoch\s+–\s+500 µs\s+no epochs in B/);
    // in the order the title says: wall, then times by the size of their change (views one run lacks last), then bytes and events
    expect(text).toMatch(/^Run figures \(summed over processes\): wall, then times by the size of their change/m);
    expect(c.figures[0]!.figure).toBe('wall');
    const sizes = c.figures.slice(1).filter((f) => f.unit === 'us').map((f) => (f.delta === null ? -1 : Math.abs(f.delta)));
    expect(sizes).toEqual([...sizes].sort((x, y) => y - x));
    expect(c.figures.slice(-3).map((f) => f.figure)).toEqual(['read', 'written', 'events']);
    // neither has them: no row at all
    expect(compareSummaries(b, b).figures.map((f) => f.figure)).not.toContain('mean wall of an epoch');
    const j = run(['compare', '--json', withEpochs, flat]);
    expect(j.status, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).figures.find((f: { figure: string }) => f.figure === 'mean wall of an epoch')).toMatchObject({ variant: null, delta: null, missing: ['variant'] });
    expect(run(['compare', withEpochs, flat]).stdout).toMatch(/no epochs in .*flat\.pfw\.gz/);
  });
});

describe('threads and lanes', () => {
  it("counts the tracer's async lanes as lanes, not threads", async () => {
    const path = join(dir, 'lanes.pfw.gz');
    const w = new TraceWriter({ path, pid: 9, tid: 9 });
    w.header();
    w.threadName(9, 'main');
    // the tracer's naming: `<thread> async N` on tid × 10000 + N
    for (const n of [1, 2, 3, 4]) w.threadName(90000 + n, `main async ${n}`);
    w.start(0);
    w.complete('step', 'compute', 10, 500);
    for (const n of [1, 2, 3, 4]) w.complete('read', 'POSIX', 20 + n, 100, { tid: 90000 + n });
    w.end(1000);
    w.close();
    const s = await summarize([path], { threads: 1 });
    expect(s.per_process[0]).toMatchObject({ threads: 1, lanes: 4 });
    expect(formatSummary(s)).toMatch(/^\s*9\s+lanes\.pfw\.gz\s+node01\s+1\s+4\s/m);
  });
});

describe('tables in the order they say', () => {
  it('directories by bytes moved, ties by name (not by a column the table does not show)', async () => {
    const path = join(dir, 'dirs.pfw.gz');
    const w = new TraceWriter({ path, pid: 11 });
    w.header();
    w.start(0);
    let t = 10;
    // /d/big moves the most; /d/z, /d/m, /d/a the same bytes, the slowest calls in /d/z
    const dirs: Array<[string, number, number]> = [['/d/z', 100, 90], ['/d/big', 500, 5], ['/d/m', 100, 50], ['/d/a', 100, 10]];
    for (const [d, size, dur] of dirs)
      for (let i = 0; i < 8; i++) {
        const f = w.fileHash(`${d}/f${i}.bin`);
        w.complete('read', 'POSIX', t, dur, { args: { fhash: f, count: size, ret: size } });
        t += dur + 1;
      }
    w.end(t);
    w.close();
    const s = await summarize([path], { threads: 1 });
    expect(s.file_groups.map((g) => [g.dir, g.bytes_read])).toEqual([['/d/big', 4000], ['/d/a', 800], ['/d/m', 800], ['/d/z', 800]]);
    const text = formatSummary(s);
    expect(text).toMatch(/^Files by directory, most bytes read and written first \(32 files in 4 directories/m);
    expect([...text.matchAll(/^(\/d\/\w+) /gm)].map((m) => m[1])).toEqual(['/d/big', '/d/a', '/d/m', '/d/z']);
    // categories by self time, as the title says
    expect(text).toMatch(/^Time by category, most self time first/m);
  });
});

describe('one name, one figure', () => {
  it("the process table splits time as the epoch table does (the fixture's own figures)", async () => {
    const path = join(dir, 'split.pfw.gz');
    writeTrainingTrace({ path, layout: 'ours', pid: 100 });
    const text = formatSummary(await summarize([path], { threads: 1 }));
    // training.test-util's run: wall 1000, compute 380, data wait 520, I/O only 20 (outside compute
    // and waits), other 30, idle 50; all I/O 90, 20 of it under compute
    expect(text).toMatch(/^\s*100\s+\S+\s+\S+\s+\d+\s+\d+\s+\d+\s+1 ms\s+380 µs\s+520 µs\s+20 µs\s+30 µs\s+50 µs\s+90 µs\s+20 µs\s/m);
    expect(text).toMatch(/^epoch 1\s+500 µs\s+280 µs\s+56%\s+120 µs\s+24%\s+20 µs\s+4%\s+30 µs\s+6%\s+50 µs\s+10%\s+90 µs\s+20 µs/m);
  });
});
