import fs from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { dftHash } from '../recording/hash.js';
import { calls, checkInvariants, setupEnv, type Env } from '../test-util/fs-env.test-util.js';

const { O_CREAT, O_TRUNC, O_RDWR, R_OK } = fs.constants;

let env: Env;
afterEach(() => env?.close());

const uid = process.getuid?.() ?? 0;
const gid = process.getgid?.() ?? 0;

/** Paths of the scenario. */
function paths(env: Env) {
  const d = join(env.data, 'd');
  return { d, f: join(d, 'f'), f2: join(d, 'f2'), f3: join(d, 'f3'), f4: join(d, 'f4'), s: join(d, 's'), missing: join(d, 'missing'), tmp: join(d, 't-') };
}

/** The events every flavour of the scenario must produce (args checked as subsets). */
function expected(env: Env, tmpDir: string): [string, Record<string, unknown>][] {
  const { d, f, f2, f3, f4, s, missing } = paths(env);
  const H = dftHash;
  return [
    ['mkdir', { fhash: H(d), mode: 0o755, ret: 0 }],
    ['open', { fhash: H(f), flags: O_TRUNC | O_CREAT | O_RDWR, mode: 0o666 }],
    ['write', { fhash: H(f), count: 10, ret: 10 }],
    ['pwrite', { fhash: H(f), count: 3, offset: 20, ret: 3 }],
    ['pread', { fhash: H(f), count: 5, offset: 0, ret: 5 }],
    ['read', { fhash: H(f), count: 8, ret: 8 }],
    ['writev', { fhash: H(f), count: 6, ret: 6 }],
    ['preadv', { fhash: H(f), count: 4, offset: 0, ret: 4 }],
    ['fstat', { fhash: H(f), ret: 0 }],
    ['ftruncate', { fhash: H(f), length: 5, ret: 0 }],
    ['fsync', { fhash: H(f), ret: 0 }],
    ['fdatasync', { fhash: H(f), ret: 0 }],
    ['fchmod', { fhash: H(f), mode: 0o644, ret: 0 }],
    ['fchown', { fhash: H(f), ret: 0 }],
    ['futimes', { fhash: H(f), ret: 0 }],
    ['close', { fhash: H(f), ret: 0 }],
    ['stat', { fhash: H(f), ret: 0 }],
    ['lstat', { fhash: H(f), ret: 0 }],
    ['access', { fhash: H(f), mode: R_OK, ret: 0 }],
    ['stat', { fhash: H(missing), ret: -1 }],
    ['chmod', { fhash: H(f), mode: 0o600, ret: 0 }],
    ['chown', { fhash: H(f), ret: 0 }],
    ['utimes', { fhash: H(f), ret: 0 }],
    ['lutimes', { fhash: H(f), ret: 0 }],
    ['truncate', { fhash: H(f), length: 2, ret: 0 }],
    ['rename', { fhash: H(f), newpath_hash: H(f2), ret: 0 }],
    ['link', { fhash: H(f2), newpath_hash: H(f3), ret: 0 }],
    ['symlink', { fhash: H(f2), newpath_hash: H(s), ret: 0 }],
    ['readlink', { fhash: H(s), ret: 2 }],
    ['realpath', { fhash: H(s), ret: 0 }],
    ['realpath', { fhash: H(s), ret: 0 }],
    ['copyfile', { fhash: H(f2), newpath_hash: H(f4), ret: 0 }],
    ['readdir', { fhash: H(d), ret: 4 }],
    ['opendir', { fhash: H(d), ret: 0 }],
    ['statfs', { fhash: H(d), ret: 0 }],
    ['mkdtemp', { fhash: H(tmpDir), ret: 0 }],
    ['rmdir', { fhash: H(tmpDir), ret: 0 }],
    ['unlink', { fhash: H(f3), ret: 0 }],
    ['remove', { fhash: H(f4), ret: 0 }],
    ['remove', { fhash: H(d), ret: 0 }],
  ];
}

function check(env: Env, tmpDir: string): void {
  const got = calls(env);
  const want = expected(env, tmpDir);
  expect(got.map(([n]) => n)).toEqual(want.map(([n]) => n));
  for (let i = 0; i < want.length; i++) expect(got[i]![1], `${want[i]![0]} #${i}`).toMatchObject(want[i]![1]);
  checkInvariants(env);
}

describe('every operation is one event named like the libc call', () => {
  test('sync API', () => {
    env = setupEnv();
    const { d, f, f2, f3, f4, s, missing, tmp } = paths(env);
    fs.mkdirSync(d, 0o755);
    const fd = fs.openSync(f, 'w+');
    expect(fs.writeSync(fd, Buffer.alloc(10))).toBe(10);
    expect(fs.writeSync(fd, 'abc', 20)).toBe(3);
    expect(fs.readSync(fd, Buffer.alloc(5), 0, 5, 0)).toBe(5);
    expect(fs.readSync(fd, Buffer.alloc(8))).toBe(8); // from the position the write left, 10
    expect(fs.writevSync(fd, [Buffer.from('ab'), Buffer.from('cdef')])).toBe(6);
    expect(fs.readvSync(fd, [Buffer.alloc(4)], 0)).toBe(4);
    fs.fstatSync(fd);
    fs.ftruncateSync(fd, 5);
    fs.fsyncSync(fd);
    fs.fdatasyncSync(fd);
    fs.fchmodSync(fd, 0o644);
    fs.fchownSync(fd, uid, gid);
    fs.futimesSync(fd, 1, 1);
    fs.closeSync(fd);
    fs.statSync(f);
    fs.lstatSync(f);
    fs.accessSync(f, R_OK);
    expect(fs.statSync(missing, { throwIfNoEntry: false })).toBeUndefined();
    fs.chmodSync(f, 0o600);
    fs.chownSync(f, uid, gid);
    fs.utimesSync(f, 2, 2);
    fs.lutimesSync(f, 2, 2);
    fs.truncateSync(f, 2);
    fs.renameSync(f, f2);
    fs.linkSync(f2, f3);
    fs.symlinkSync('f2', s);
    expect(fs.readlinkSync(s)).toBe('f2');
    expect(fs.realpathSync(s)).toBe(f2);
    expect(fs.realpathSync.native(s)).toBe(f2);
    fs.copyFileSync(f2, f4);
    expect(fs.readdirSync(d)).toHaveLength(4);
    fs.opendirSync(d).closeSync();
    fs.statfsSync(d);
    const t = fs.mkdtempSync(tmp);
    fs.rmdirSync(t);
    fs.unlinkSync(f3);
    fs.rmSync(f4);
    fs.rmSync(d, { recursive: true });
    check(env, t);
    expect(env.tr.pathOf(dftHash(tmp))).toBeUndefined(); // the prefix is no file: no FH record
  });

  test('callback API', async () => {
    env = setupEnv();
    const { d, f, f2, f3, f4, s, missing, tmp } = paths(env);
    const cb = <T = unknown>(fn: (...a: never[]) => unknown, ...args: unknown[]): Promise<T> =>
      new Promise<T>((res, rej) => (fn as (...a: unknown[]) => void)(...args, (e: unknown, r: T) => (e ? rej(e) : res(r))));
    await cb(fs.mkdir, d, { mode: 0o755 });
    const fd = await cb<number>(fs.open, f, 'w+');
    expect(await cb(fs.write, fd, Buffer.alloc(10))).toBe(10);
    expect(await cb(fs.write, fd, 'abc', 20)).toBe(3);
    expect(await cb(fs.read, fd, Buffer.alloc(5), 0, 5, 0)).toBe(5);
    expect(await cb(fs.read, fd, { buffer: Buffer.alloc(8) })).toBe(8);
    expect(await cb(fs.writev, fd, [Buffer.from('ab'), Buffer.from('cdef')])).toBe(6);
    expect(await cb(fs.readv, fd, [Buffer.alloc(4)], 0)).toBe(4);
    await cb(fs.fstat, fd);
    await cb(fs.ftruncate, fd, 5);
    await cb(fs.fsync, fd);
    await cb(fs.fdatasync, fd);
    await cb(fs.fchmod, fd, 0o644);
    await cb(fs.fchown, fd, uid, gid);
    await cb(fs.futimes, fd, 1, 1);
    await cb(fs.close, fd);
    await cb(fs.stat, f);
    await cb(fs.lstat, f);
    await cb(fs.access, f, R_OK);
    await expect(cb(fs.stat, missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await cb(fs.chmod, f, 0o600);
    await cb(fs.chown, f, uid, gid);
    await cb(fs.utimes, f, 2, 2);
    await cb(fs.lutimes, f, 2, 2);
    await cb(fs.truncate, f, 2);
    await cb(fs.rename, f, f2);
    await cb(fs.link, f2, f3);
    await cb(fs.symlink, 'f2', s);
    expect(await cb(fs.readlink, s)).toBe('f2');
    expect(await cb(fs.realpath, s)).toBe(f2);
    expect(await cb(fs.realpath.native, s)).toBe(f2);
    await cb(fs.copyFile, f2, f4);
    expect(await cb(fs.readdir, d)).toHaveLength(4);
    await (await cb<fs.Dir>(fs.opendir, d)).close();
    await cb(fs.statfs, d);
    const t = await cb<string>(fs.mkdtemp, tmp);
    await cb(fs.rmdir, t);
    await cb(fs.unlink, f3);
    await cb(fs.rm, f4);
    await cb(fs.rm, d, { recursive: true });
    check(env, t);
  });

  test('fs/promises and FileHandle API', async () => {
    env = setupEnv();
    const { d, f, f2, f3, f4, s, missing, tmp } = paths(env);
    const p = fs.promises;
    await p.mkdir(d, { mode: 0o755 });
    const fh = await p.open(f, 'w+');
    expect((await fh.write(Buffer.alloc(10))).bytesWritten).toBe(10);
    expect((await fh.write('abc', 20)).bytesWritten).toBe(3);
    expect((await fh.read(Buffer.alloc(5), 0, 5, 0)).bytesRead).toBe(5);
    expect((await fh.read({ buffer: Buffer.alloc(8) })).bytesRead).toBe(8);
    expect((await fh.writev([Buffer.from('ab'), Buffer.from('cdef')])).bytesWritten).toBe(6);
    expect((await fh.readv([Buffer.alloc(4)], 0)).bytesRead).toBe(4);
    await fh.stat();
    await fh.truncate(5);
    await fh.sync();
    await fh.datasync();
    await fh.chmod(0o644);
    await fh.chown(uid, gid);
    await fh.utimes(1, 1);
    await fh.close();
    await p.stat(f);
    await p.lstat(f);
    await p.access(f, R_OK);
    await expect(p.stat(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await p.chmod(f, 0o600);
    await p.chown(f, uid, gid);
    await p.utimes(f, 2, 2);
    await p.lutimes(f, 2, 2);
    await p.truncate(f, 2);
    await p.rename(f, f2);
    await p.link(f2, f3);
    await p.symlink('f2', s);
    expect(await p.readlink(s)).toBe('f2');
    expect(await p.realpath(s)).toBe(f2);
    expect(await promisify(fs.realpath.native)(s)).toBe(f2);
    await p.copyFile(f2, f4);
    expect(await p.readdir(d)).toHaveLength(4);
    await (await p.opendir(d)).close();
    await p.statfs(d);
    const t = await p.mkdtemp(tmp);
    await p.rmdir(t);
    await p.unlink(f3);
    await p.rm(f4);
    await p.rm(d, { recursive: true });
    check(env, t);
  });
});

describe('what is not traced', () => {
  test('files outside the data dirs, their fds, the trace file, and stdout', async () => {
    env = setupEnv();
    const out = join(env.outside, 'o.txt');
    fs.writeFileSync(out, 'abc');
    fs.readFileSync(out);
    fs.readFileSync(out, 'utf8');
    const fd = fs.openSync(out, 'r+');
    fs.readSync(fd, Buffer.alloc(3), 0, 3, 0);
    fs.writeSync(fd, 'x');
    fs.closeSync(fd);
    await fs.promises.readFile(out);
    await new Promise((r) => fs.readFile(out, r));
    const fh = await fs.promises.open(out);
    await fh.read(Buffer.alloc(1), 0, 1, 0);
    await fh.close();
    fs.statSync(out);
    fs.rmSync(out);
    // the trace file, although it lies in the data dir
    fs.writeFileSync(env.tr.traceFile, 'x');
    fs.readFileSync(env.tr.traceFile);
    // stdout: console.log to a file is writeSync(1, ...)
    fs.writeSync(1, '');
    expect(env.tr.events).toEqual([]);
    expect([...env.tr.files.keys()]).toEqual([]);
  });

  test('a data dir matches by path segment: /x/data does not cover /x/data2', () => {
    env = setupEnv();
    const sibling = `${env.data}2`;
    fs.mkdirSync(sibling);
    fs.writeFileSync(join(sibling, 'f'), 'abc');
    expect(env.tr.events).toEqual([]);
    fs.rmSync(sibling, { recursive: true });
  });

  test("DFTRACER_DATA_DIR=all traces everything but the trace file", () => {
    env = setupEnv('all');
    const out = join(env.outside, 'o.txt');
    fs.writeFileSync(out, 'abc');
    fs.writeFileSync(env.tr.traceFile, 'x');
    expect(env.tr.names()).toEqual(['open', 'write', 'close']);
  });
});

describe('path forms', () => {
  test('relative (against the cwd at the call), Buffer and file: URL paths name the same file', async () => {
    env = setupEnv();
    const p = join(env.data, 'rel.txt');
    fs.writeFileSync(p, 'abc');
    env.tr.clear();
    const cwd = process.cwd();
    process.chdir(env.data);
    try {
      fs.statSync('rel.txt');
      fs.statSync('../data/./rel.txt');
    } finally {
      process.chdir(cwd);
    }
    fs.statSync(Buffer.from(p));
    fs.statSync(new URL(`file://${p}`));
    await fs.promises.stat(new URL(`file://${p}`));
    expect(calls(env)).toEqual(Array(5).fill(['stat', { fhash: dftHash(p), ret: 0 }]));
    expect([...env.tr.files.keys()]).toEqual([p]);
  });
});

describe('recursion', () => {
  test('rm -r, truncate(path), realpath: one event each, whatever Node calls inside', async () => {
    env = setupEnv();
    const d = join(env.data, 'tree');
    const seen: string[] = [];
    const mk = () => {
      seen.push(...env.tr.names());
      fs.mkdirSync(join(d, 'a', 'b'), { recursive: true });
      fs.writeFileSync(join(d, 'a', 'b', 'f'), 'x');
      fs.writeFileSync(join(d, 'g'), 'y');
      env.tr.clear();
    };
    mk();
    fs.rmSync(d, { recursive: true });
    mk();
    await new Promise((r) => fs.rm(d, { recursive: true }, r));
    mk();
    await fs.promises.rm(d, { recursive: true });
    mk();
    // rmdir on the emptied directory: its `recursive` option is deprecated (rm does that).
    fs.rmSync(join(d, 'a'), { recursive: true });
    fs.rmSync(join(d, 'g'));
    env.tr.clear();
    await fs.promises.rmdir(d);
    seen.push(...env.tr.names());
    expect(seen).toEqual(['remove', 'remove', 'remove', 'rmdir']);
    expect(fs.existsSync(d)).toBe(false);

    mk();
    const g = join(d, 'g');
    fs.truncateSync(g, 0);
    await new Promise((r) => fs.truncate(g, 0, r));
    await fs.promises.truncate(g, 0);
    fs.realpathSync(g);
    await new Promise((r) => fs.realpath(g, r));
    await fs.promises.realpath(g);
    expect(env.tr.names()).toEqual(['truncate', 'truncate', 'truncate', 'realpath', 'realpath', 'realpath']);
  });

  test('fs.exists is the access(F_OK) Node does inside it', async () => {
    env = setupEnv();
    const p = join(env.data, 'e');
    fs.writeFileSync(p, '');
    env.tr.clear();
    expect(await new Promise((r) => fs.exists(p, r))).toBe(true);
    expect(await promisify(fs.exists)(join(env.data, 'nope'))).toBe(false);
    expect(fs.existsSync(p)).toBe(true);
    expect(calls(env)).toEqual([
      ['access', { fhash: dftHash(p), mode: 0, ret: 0 }],
      ['access', { fhash: dftHash(join(env.data, 'nope')), mode: 0, ret: -1 }],
      ['access', { fhash: dftHash(p), mode: 0, ret: 0 }],
    ]);
  });

  test('rename across the data dir boundary: traced, the outside path never recorded', () => {
    env = setupEnv();
    const out = join(env.outside, 'o');
    const inside = join(env.data, 'i');
    fs.writeFileSync(out, 'x');
    fs.renameSync(out, inside); // into the data dir
    fs.renameSync(inside, out); // out of it
    fs.symlinkSync(out, inside); // a link in the data dir to an outside file
    expect(calls(env)).toEqual([
      ['rename', { fhash: dftHash(inside), ret: 0 }],
      ['rename', { fhash: dftHash(inside), ret: 0 }],
      ['symlink', { fhash: dftHash(inside), ret: 0 }],
    ]);
    expect([...env.tr.files.keys()]).toEqual([inside]);
  });
});

describe('fds', () => {
  test('an fd is traced from its open to its close, then its number is free', () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    const out = join(env.outside, 'o');
    fs.writeFileSync(out, 'abc');
    const fd = fs.openSync(p, 'w');
    fs.closeSync(fd);
    env.tr.clear();
    const fd2 = fs.openSync(out, 'r'); // typically the same number
    fs.readSync(fd2, Buffer.alloc(3));
    fs.closeSync(fd2);
    expect(env.tr.events).toEqual([]);
  });

  test('errors: ret -1 and the same error object reaches the caller', async () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    const fd = fs.openSync(p, 'w');
    let thrown: unknown;
    try {
      fs.readSync(fd, Buffer.alloc(3)); // write-only fd: EBADF
    } catch (e) {
      thrown = e;
    }
    expect((thrown as NodeJS.ErrnoException).code).toBe('EBADF');
    const cbErr = await new Promise((r) => fs.read(fd, Buffer.alloc(3), 0, 3, null, (e) => r(e)));
    expect((cbErr as NodeJS.ErrnoException).code).toBe('EBADF');
    fs.closeSync(fd);
    expect(() => fs.closeSync(fd)).toThrow(/EBADF/); // no longer traced: no event
    expect(calls(env).map(([n, a]) => [n, a.ret])).toEqual([
      ['open', fd],
      ['read', -1],
      ['read', -1],
      ['close', 0],
    ]);
  });

  test('a read made inside another read (an options getter Node runs) is its own event; the outer keeps its args and times', () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    fs.writeFileSync(p, '0123456789');
    const fd = fs.openSync(p, 'r');
    env.tr.clear();
    const inner = Buffer.alloc(2);
    let innerRead = 0;
    // Both the wrapper (to learn count and offset) and Node's readSync (inside the call) read it.
    const options = {
      get position() {
        innerRead = fs.readSync(fd, inner, 0, 2, 7);
        return 0;
      },
    };
    const outer = Buffer.alloc(4);
    expect(fs.readSync(fd, outer, options)).toBe(4);
    expect([outer.toString(), inner.toString(), innerRead]).toEqual(['0123', '78', 2]);
    const reads = env.tr.posix();
    const H = dftHash(p);
    const inners = reads.filter((e) => e.args.offset === 7);
    const outers = reads.filter((e) => e.args.offset !== 7);
    // One inner read from the wrapper's own look at the options, one from Node's inside the call.
    expect(inners.map((e) => [e.name, e.args])).toEqual([
      ['pread', { fhash: H, count: 2, offset: 7, ret: 2 }],
      ['pread', { fhash: H, count: 2, offset: 7, ret: 2 }],
    ]);
    expect(outers.map((e) => [e.name, e.args])).toEqual([['pread', { fhash: H, count: 4, offset: 0, ret: 4 }]]);
    const [o] = outers;
    expect(inners.filter((e) => e.ts >= o!.ts && e.ts + e.dur <= o!.ts + o!.dur)).toHaveLength(1);
    fs.closeSync(fd);
  });

  test('fs.close without a callback is traced', async () => {
    env = setupEnv();
    const fd = fs.openSync(join(env.data, 'f'), 'w');
    fs.close(fd);
    await new Promise((r) => setTimeout(r, 20));
    expect(env.tr.names()).toEqual(['open', 'close']);
  });

  test('a FileHandle closed twice, and one used after close', async () => {
    env = setupEnv();
    const fh = await fs.promises.open(join(env.data, 'f'), 'w');
    await Promise.all([fh.close(), fh.close()]);
    await fh.close();
    await expect(fh.stat()).rejects.toMatchObject({ code: 'EBADF' });
    expect(env.tr.names()).toEqual(['open', 'close']);
  });
});
