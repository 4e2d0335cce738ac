import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, statSync, writeFileSync, linkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { dftHash } from '../recording/hash.js';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import { cleanEnv, writeModule } from '../test-util/node-process.test-util.js';

/**
 * The trace file is created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW): a symlink planted at its
 * path is never followed, a planted hard link or stale file is replaced, not appended to; its mode
 * is 0644 less the umask. I/O on paths outside DFTRACER_DATA_DIR leaves no trace: neither the path
 * nor its hash.
 */

// The program computes its own trace path (exec-host-pid), plants something there, then starts tracing.
const PLANT = `
import { initializeLog, dftFn, finalize, dftHash } from CORE;
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { symlinkSync, linkSync, writeFileSync } from 'node:fs';
const prefix = process.env.PREFIX;
const path = prefix + '-' + dftHash(basename(process.argv[1]) + '-' + hostname() + '-' + process.pid) + '-app.pfw.gz';
const how = process.env.PLANT;
if (how === 'symlink') symlinkSync(process.env.VICTIM, path);
if (how === 'hardlink') linkSync(process.env.VICTIM, path);
if (how === 'stale') writeFileSync(path, 'stale bytes of an earlier process\\n');
const log = initializeLog({ logFile: prefix, dataDir: process.env.DATA });
const f = dftFn('sec').log(function work(step) { return step * 2; });
let sum = 0;
for (let i = 0; i < 100; i++) sum += f(i);
finalize();
console.log(JSON.stringify({ sum, file: log.file, path }));
`;

function plant(how: string, extraEnv: Record<string, string> = {}) {
  const dir = tempDir('dft-sec-');
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious\n', { mode: 0o666 });
  const r = spawnSync(process.execPath, [writeModule(dir, PLANT)], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...cleanEnv(), DFTRACER_ENABLE: '1', PREFIX: join(dir, 'trace'), VICTIM: victim, PLANT: how, DATA: join(dir, 'data'), ...extraEnv },
    timeout: 30_000,
  });
  return { dir, victim, r, out: r.stdout ? (JSON.parse(r.stdout) as { sum: number; file: string | null; path: string }) : null };
}

describe('the trace file', () => {
  it('is never written through a symlink planted at its path: one warning, tracing off, the program unharmed', () => {
    const { victim, r, out } = plant('symlink');
    expect(r.status).toBe(0);
    expect(out!.sum).toBe(9900);
    expect(out!.file).toBeNull();
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(out!.path).isSymbolicLink()).toBe(true);
    expect(r.stderr).toMatch(/^dftracer: cannot create the trace file under .*is a symbolic link; refusing to write a trace through it; tracing is off\n$/);
  });

  it('a dangling symlink planted at its path does not create its target', () => {
    const dir = tempDir('dft-sec-');
    const target = join(dir, 'elsewhere', 'created-by-tracer');
    mkdirSync(join(dir, 'elsewhere'));
    const { r, out } = plant('symlink', { VICTIM: target });
    expect(r.status).toBe(0);
    expect(out!.file).toBeNull();
    expect(() => statSync(target)).toThrow(/ENOENT/);
  });

  it('a planted hard link or a stale file is replaced, never appended to or truncated through', () => {
    for (const how of ['hardlink', 'stale']) {
      const { victim, r, out } = plant(how);
      expect(r.stderr).toBe('');
      expect(out!.file).toBe(out!.path);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      const t = readTrace(out!.file!);
      expect(traceProblems(t)).toEqual([]);
      expect(t.complete.filter((e) => e.name === 'work')).toHaveLength(100);
    }
  });

  it('has mode 0644 less the umask, never more', () => {
    for (const [umask, want] of [
      [0o022, 0o644],
      [0o077, 0o600],
      [0o000, 0o644],
      [0o027, 0o640],
    ] as const) {
      const dir = tempDir('dft-sec-');
      const r = spawnSync(process.execPath, [writeModule(dir, `
        process.umask(${umask});
        const { initializeLog, finalize } = await import(CORE);
        initializeLog({ logFile: ${JSON.stringify(join(dir, 'mode'))} });
        finalize();
      `)], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1' }, timeout: 30_000 });
      expect(r.stderr).toBe('');
      expect(statSync(traceFiles(dir)[0]!).mode & 0o777, `umask ${umask.toString(8)}`).toBe(want);
    }
  });
});

describe('DFTRACER_DATA_DIR', () => {
  it('paths outside it never appear in the trace, not even hashed, whatever the API', () => {
    const dir = tempDir('dft-sec-');
    const data = join(dir, 'data');
    const outside = join(dir, 'outside');
    const database = join(dir, 'database'); // shares the prefix "data" but is not under data/
    for (const d of [data, outside, database]) mkdirSync(d);
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    writeFileSync(join(outside, 'b.txt'), 'b\n');
    symlinkSync(join(outside, 'secret.txt'), join(data, 'link'));
    linkSync(join(outside, 'secret.txt'), join(dir, 'hard-outside.txt'));
    const r = spawnSync(process.execPath, [writeModule(dir, `
      import { initializeLog, finalize } from CORE;
      import fs, { readFileSync, writeFileSync, statSync, readdirSync, renameSync, copyFileSync, openSync, readSync, fstatSync, closeSync, realpathSync, appendFileSync, existsSync, unlinkSync } from 'node:fs';
      import { readFile, open, stat } from 'node:fs/promises';
      import { join } from 'node:path';
      const [data, outside, database] = ${JSON.stringify([data, outside, database])};
      initializeLog({ logFile: join(data, 'trace'), dataDir: data });
      const secret = join(outside, 'secret.txt');
      writeFileSync(join(data, 'in.txt'), 'in\\n');
      readFileSync(join(data, 'in.txt'));
      readFileSync(secret); statSync(secret); readdirSync(outside); existsSync(secret); appendFileSync(join(outside, 'log.txt'), 'x');
      readFileSync(join(data, '..', 'outside', 'secret.txt'));
      writeFileSync(join(database, 'db.txt'), 'db'); readFileSync(join(database, 'db.txt'), 'utf8');
      readFileSync(join(data, 'link'), 'utf8'); realpathSync(join(data, 'link'));
      writeFileSync(join(data, 'a.txt'), 'a'); renameSync(join(data, 'a.txt'), join(outside, 'a.txt'));
      renameSync(join(outside, 'b.txt'), join(data, 'b.txt'));
      copyFileSync(secret, join(data, 'copy.txt')); copyFileSync(join(data, 'in.txt'), join(outside, 'copy2.txt'));
      const fd = openSync(secret, 'r'); readSync(fd, Buffer.alloc(4)); fstatSync(fd); closeSync(fd);
      await readFile(secret); await stat(secret);
      const h = await open(secret); await h.read(Buffer.alloc(4), 0, 4, 0); await h.stat(); await h.close();
      await new Promise((res, rej) => fs.createReadStream(secret).on('data', () => {}).on('end', res).on('error', rej));
      await new Promise((res) => fs.readFile(join(outside, 'copy2.txt'), res));
      unlinkSync(join(outside, 'copy2.txt'));
      finalize();
    `)], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1' }, timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const file = traceFiles(data)[0]!;
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    const text = gunzipSync(readFileSync(file)).toString('utf8');
    // The I/O inside data/ was traced (so the check below is not vacuous)...
    const fh = new Map(t.meta.filter((m) => m.name === 'FH').map((m) => [m.args!.name as string, m.args!.value as string]));
    for (const p of ['in.txt', 'link', 'b.txt', 'copy.txt']) expect(fh.has(join(data, p)), p).toBe(true);
    expect(t.complete.some((e) => e.cat === 'POSIX' && e.args!.fhash === fh.get(join(data, 'in.txt')))).toBe(true);
    // ...and nothing outside it, by name or by hash. The trace file itself is not traced either.
    const secrets = [
      outside,
      join(outside, 'secret.txt'),
      join(outside, 'log.txt'),
      join(outside, 'a.txt'),
      join(outside, 'b.txt'),
      join(outside, 'copy2.txt'),
      join(data, '..', 'outside', 'secret.txt'),
      `${data}/../outside/secret.txt`,
      database,
      join(database, 'db.txt'),
      join(dir, 'hard-outside.txt'),
      file,
    ];
    for (const s of secrets) {
      expect(text.includes(JSON.stringify(s).slice(1, -1)), `path ${s}`).toBe(false);
      expect(text.includes(dftHash(s)), `hash of ${s}`).toBe(false);
    }
    expect([...fh.keys()].filter((p) => !p.startsWith(`${data}/`) && p !== dir)).toEqual([]);
  });
});
