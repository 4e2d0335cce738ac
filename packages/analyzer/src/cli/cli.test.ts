/**
 * The built `dftracer` bin, run as a user would (needs `pnpm build` first; turbo's test task
 * depends on build). Covers exit codes, one-line errors, --help everywhere, and the worker-thread
 * path of validate.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../test-util/cli.test-util.js';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';
import { commands } from './commands.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

const run = (...args: string[]) => runCli(args, dir);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "pnpm --filter @dftracer/analyzer build" first`);
});

describe('dftracer CLI', () => {
  it('has --help for every command', () => {
    const main = run('--help');
    expect(main.code).toBe(0);
    for (const c of commands) {
      expect(main.out).toContain(c.name);
      const h = run(c.name, '--help');
      expect(h.code).toBe(0);
      expect(h.out).toMatch(new RegExp(`^Usage: dftracer ${c.name}`));
    }
    expect(run('--version').out.trim()).toBe(JSON.parse(readFileSync(join(dirname(CLI), '..', 'package.json'), 'utf8')).version);
  });

  it('gives one-line usage errors with exit code 2, never a stack', () => {
    for (const args of [['frobnicate'], ['validate'], ['validate', '--nope', 'x'], ['summary', 'missing.pfw'], ['merge', 'a.pfw'], ['export', 'a.pfw'], ['query'], ['report', '--max-slices', 'many', 'x', '-o', 'r.html']]) {
      const r = run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err).toMatch(/^dftracer: /);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });

  it('validate: exit 0 and a one-line verdict when clean (worker threads), exit 1 with file:line reasons otherwise', () => {
    const good = writeSyntheticTrace({ path: join(dir, 'good.pfw.gz'), events: 50_000, memberBytes: 64 * 1024 }).path;
    const ok = run('validate', '--threads', '2', good);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^valid: 1 file, 50,000 events and [\d,]+ metadata and counter records checked, no problems \(.+\)\n$/);

    const bad = writeSmallTrace(join(dir, 'bad.pfw.gz'), 'unknown-fhash');
    const junk = join(dir, 'junk.pfw');
    writeFileSync(junk, 'PK\x03\x04 not a trace');
    const r = run('validate', good, bad.path, junk);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`bad.pfw.gz:${bad.line}: hash: hash 0123456789abcdef is not defined by any FH metadata line`);
    expect(r.out).toContain('junk.pfw:1: not-trace: not a DFTracer trace');
    expect(r.out).toMatch(/invalid: 2 problems in 2 of 3 files \(hash 1, not-trace 1\)/);

    const unfinished = writeSmallTrace(join(dir, 'killed.pfw.gz'), 'unfinished');
    const u = run('validate', unfinished.path);
    expect(u.code).toBe(0);
    expect(u.out).toMatch(/^killed\.pfw\.gz: warning: unfinished: no "end" event for pid 4242/);
    expect(u.out).toMatch(/\nvalid: 1 file, .*, no problems, 1 warning \(/);
    const strict = run('validate', '--strict', unfinished.path);
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/killed\.pfw\.gz:\d+: strict: unfinished: no "end" event/);
    expect(strict.out).toMatch(/invalid: 1 problem in 1 of 1 file \(strict 1\), 1 warning; 10 events and 10 metadata and counter records checked/);

    const json = run('validate', '--json', bad.path);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).files[0].problems[0].kind).toBe('hash');
  });

  it('validate scans a directory recursively, and a glob', () => {
    const { dir: tree, cleanup: done } = tempDir();
    try {
      writeSmallTrace(join(tree, 'a.pfw'));
      writeSmallTrace(join(tree, 'deeper', 'b.pfw.gz'));
      const r = run('validate', tree);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^valid: 2 files, 22 events and 20 metadata and counter records checked, no problems \(/);
      writeFileSync(join(tree, 'notes.txt'), 'ignored: not a trace name');
      expect(run('validate', tree).code).toBe(0);
      expect(run('validate', `${tree}/**/*.pfw.gz`).out).toMatch(/^valid: 1 file, 11 events/);
      // --max-problems caps problem and warning lines alike
      writeSmallTrace(join(tree, 'c.pfw'), 'unfinished');
      writeSmallTrace(join(tree, 'd.pfw'), 'unfinished');
      const capped = run('validate', '--max-problems', '1', tree);
      expect(capped.out.split('\n').filter((l) => l.includes(': warning: '))).toHaveLength(1);
      expect(capped.out).toMatch(/… 1 more lines \(--max-problems N to see more\)/);
    } finally {
      done();
    }
  });

  it('summary --json, merge, export, query and report run end to end', () => {
    const a = writeSmallTrace(join(dir, 'e2e-a.pfw.gz'), 'clean', { pid: 11 }).path;
    const b = writeSmallTrace(join(dir, 'e2e-b.pfw.gz'), 'clean', { pid: 12 }).path;
    const s = run('summary', '--json', a, b);
    expect(s.code).toBe(0);
    const j = JSON.parse(s.out);
    expect(j.events).toBe(22);
    expect(j.totals.overlap_us).toBe(100);
    expect(j.warnings).toEqual([]);
    expect(run('summary', a).out).toMatch(/Time by name/);

    expect(run('merge', a, b, '-o', 'm.pfw.gz').code).toBe(0);
    expect(run('merge', a, b, '-o', 'm.pfw.gz').code).toBe(2); // exists
    expect(run('validate', join(dir, 'm.pfw.gz')).code).toBe(0);

    const p = run('export', '--perfetto', join(dir, 'm.pfw.gz'), '-o', 'm.json');
    expect(p.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')).filter((e: { ph: string }) => e.ph === 'X')).toHaveLength(22);

    const q = run('query', '--csv', 'SELECT pid, count(*) AS n FROM events GROUP BY pid ORDER BY pid', a, b);
    expect(q.out).toBe('pid,n\n11,11\n12,11\n');
    expect(run('export', a, '-o', 'e.parquet').code).toBe(0);

    const rep = run('report', a, b, '-o', 'r.html');
    expect(rep.code).toBe(0);
    expect(rep.out).toMatch(/4 tracks/);
  });

  it('summary --progress writes its stages to stderr, never to the JSON on stdout', () => {
    const path = writeSyntheticTrace({ path: join(dir, 'progress.pfw.gz'), events: 5_000 }).path;
    const quiet = run('summary', '--json', path);
    expect(quiet.code).toBe(0);
    expect(quiet.err).toBe('');
    const r = run('summary', '--json', '--progress', path);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^summary: reading traces \(\d+ s\)$/m);
    expect(JSON.parse(r.out).events).toBe(5_000);
  });

  it('warns about a truncated gzip in DuckDB commands and fails on non-trace input', () => {
    const t = writeSmallTrace(join(dir, 'trunc.pfw.gz'), 'clean', { memberBytes: 256 });
    const buf = readFileSync(t.path);
    writeFileSync(t.path, buf.subarray(0, buf.length - 15));
    const s = run('summary', t.path);
    expect(s.code).toBe(0);
    expect(s.err).toMatch(/^dftracer: warning: trunc\.pfw\.gz: truncated gzip/);
    const junk = join(dir, 'junk2.pfw.gz');
    writeFileSync(junk, 'plain text, not gzip, not a trace\n');
    const r = run('summary', junk);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^dftracer: junk2\.pfw\.gz: not a DFTracer trace: line 1 is not "\["/);
  });
});
