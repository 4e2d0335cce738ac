/**
 * Outputs written safely, through the built `dftracer` bin as a user runs it: merge, export
 * (--perfetto, .json.gz, --parquet) and report never leave a half-written file under the output's
 * name, refuse an output that is also an input, and say an output error in one line.
 * Tests run as root, which may write anywhere: an unwritable directory is a path under a regular
 * file (ENOTDIR), which no permission bypasses.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrace } from '@dftracer/testing';
import { CLI, runCli } from '../test-util/cli.test-util.js';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';
import { OutputFile, outputError } from './output-file.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

const run = (...args: string[]) => runCli(args, dir);

/** Temporary files the helper left in `d` (`.NAME.PID-XXXX.part`). */
const leftovers = (d: string) => readdirSync(d).filter((f) => f.endsWith('.part'));

let a = '';
let b = '';
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "pnpm --filter @dftracer/analyzer build" first`);
  a = writeSmallTrace(join(dir, 'a.pfw.gz'), 'clean', { pid: 11 }).path;
  b = writeSmallTrace(join(dir, 'b.pfw.gz'), 'clean', { pid: 12 }).path;
});

/** Each command that writes a file, with an output name of its kind. */
const writers: Array<[string, (out: string) => string[]]> = [
  ['merge', (o) => ['merge', a, b, '-o', `${o}.pfw.gz`]],
  ['export --perfetto', (o) => ['export', '--perfetto', a, '-o', `${o}.json`]],
  ['export --perfetto .gz', (o) => ['export', '--perfetto', a, '-o', `${o}.json.gz`]],
  ['export --parquet', (o) => ['export', '--parquet', a, '-o', `${o}.parquet`]],
  ['report', (o) => ['report', a, '-o', `${o}.html`]],
];

/** One line on stderr, `dftracer: …`, no stack, no unhandled 'error' event. */
function expectOneLine(r: { code: number; err: string }, what: RegExp): void {
  expect(r.code).not.toBe(0);
  expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
  expect(r.err).toMatch(/^dftracer: /);
  expect(r.err).toMatch(what);
  expect(r.err).not.toMatch(/\n\s+at |Unhandled|node:internal/);
}

describe('outputs written safely', () => {
  it.each(writers)('%s: a missing directory is one line with a non-zero exit, and nothing is created', (_name, args) => {
    const r = run(...args(join(dir, 'no-such-dir', 'out')));
    expectOneLine(r, /cannot write .*no-such-dir.*: its directory does not exist/);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it.each(writers)('%s: an unwritable directory (a path under a regular file) is one line with a non-zero exit', (_name, args) => {
    const file = join(dir, 'regular-file');
    writeFileSync(file, 'not a directory');
    const r = run(...args(join(file, 'out')));
    expectOneLine(r, /cannot write .*regular-file.*: a part of its path is not a directory/);
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
  });

  it.each(writers)('%s: a good run leaves the output and no temporary file', (name, args) => {
    const sub = join(dir, `ok-${name.replace(/\W+/g, '-')}`);
    spawnSync('mkdir', ['-p', sub]);
    const r = run(...args(join(sub, 'out')));
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(sub).filter((f) => f.startsWith('out.'))).toHaveLength(1);
    expect(leftovers(sub)).toEqual([]);
  });

  it('merge refuses an output that is also an input (also under --force, also as a hard link), and leaves it as it was', () => {
    const victim = join(dir, 'victim.pfw.gz');
    writeSmallTrace(victim, 'clean', { pid: 13 });
    const before = readFileSync(victim);
    for (const args of [
      ['merge', a, victim, '-o', victim, '--force'],
      ['merge', a, victim, '-o', 'victim.pfw.gz', '--force'], // relative to the cwd
      ['merge', dir, '-o', victim, '--force'], // found in a directory operand
    ]) {
      const r = run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/^dftracer: merge: the output .*victim\.pfw\.gz is also an input; write it elsewhere\n$/);
      expect(r.out).toBe('');
    }
    const link = join(dir, 'hardlink.pfw.gz');
    linkSync(victim, link);
    const r = run('merge', a, link, '-o', victim, '--force');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/is also an input/);
    expect(readFileSync(victim).equals(before)).toBe(true);
    expect(readTrace(victim).events.filter((e) => e.ph === 'X')).toHaveLength(11);
  });

  it('validate --threads beyond the cores is capped (a note on stderr) and finishes at once', () => {
    const r = run('validate', '--threads', '999', a);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^dftracer: note: --threads 999 capped at \d+, the cores available\n$/);
    expect(r.out).toMatch(/^valid: 1 file, 11 events/);
    const q = run('query', '--threads', '999', '--csv', 'SELECT count(*) AS n FROM events', a);
    expect(q.code).toBe(0);
    expect(q.out).toBe('n\n11\n');
  });

  it('a write error (full disk) is one line naming the output, and the temporary file is removed', async () => {
    // /dev/full answers every write with ENOSPC, as a full disk does
    expect(outputError('merge', 'out.pfw.gz', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })).message).toBe(
      'merge: cannot write out.pfw.gz: no space left on the device (ENOSPC)',
    );
    const out = await OutputFile.create('merge', join(dir, 'full.pfw'));
    expect(existsSync(out.path)).toBe(true);
    const { open } = await import('node:fs/promises');
    // swap the handle's target for /dev/full: the next write fails as on a full disk
    const full = await open('/dev/full', 'w');
    const handle = out as unknown as { fh: { close(): Promise<void> } };
    await handle.fh.close();
    handle.fh = full;
    await expect(out.write('x'.repeat(1 << 16))).rejects.toThrow(/^merge: cannot write .*full\.pfw: no space left on the device \(ENOSPC\)$/);
    await out.discard();
    expect(leftovers(dir)).toEqual([]);
    expect(existsSync(join(dir, 'full.pfw'))).toBe(false);
  });
});

/**
 * Ctrl-C in the middle of writing: the child is interrupted once its temporary file has data, and
 * must leave nothing under the output's name (an older file under it, with --force, stays whole).
 */
describe('an interrupted run (SIGINT mid-write)', () => {
  let big = '';
  beforeAll(() => {
    big = writeSyntheticTrace({ path: join(dir, 'big.pfw.gz'), events: 300_000, seed: 3 }).path;
  });

  async function interrupt(args: string[], sub: string): Promise<{ signal: NodeJS.Signals | null; code: number | null; partSeen: number }> {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: 'ignore', env: { ...process.env, NO_PROGRESS: '1' } });
    const exited = new Promise<{ signal: NodeJS.Signals | null; code: number | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let partSeen = 0;
    let done = false;
    void exited.then(() => (done = true));
    while (!done) {
      const part = leftovers(sub)[0];
      const size = part ? statSync(join(sub, part), { throwIfNoEntry: false })?.size ?? 0 : 0;
      if (size > 0) {
        partSeen = size;
        child.kill('SIGINT');
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return { ...(await exited), partSeen };
  }

  it.each([
    ['merge', (o: string) => ['merge', big, a, '-o', `${o}.pfw`]],
    ['export --perfetto', (o: string) => ['export', '--perfetto', big, '-o', `${o}.json`]],
  ] as Array<[string, (o: string) => string[]]>)(
    '%s: nothing under the output name, no temporary file left, an older output kept whole',
    async (name, args) => {
      const sub = join(dir, `sigint-${name.replace(/\W+/g, '-')}`);
      spawnSync('mkdir', ['-p', sub]);
      const target = args(join(sub, 'out')).at(-1)!;
      const r = await interrupt(args(join(sub, 'out')), sub);
      expect(r.partSeen, 'interrupted while writing').toBeGreaterThan(0);
      expect(r.signal).toBe('SIGINT');
      expect(existsSync(target)).toBe(false);
      expect(leftovers(sub)).toEqual([]);

      // with --force over an older output: the older one is untouched
      writeFileSync(target, 'older output');
      const again = await interrupt([...args(join(sub, 'out')), '--force'], sub);
      expect(again.partSeen).toBeGreaterThan(0);
      expect(again.signal).toBe('SIGINT');
      expect(readFileSync(target, 'utf8')).toBe('older output');
      expect(leftovers(sub)).toEqual([]);
    },
    60_000,
  );
});
