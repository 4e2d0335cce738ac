import fs from 'node:fs';
import { readFileSync as esmReadFileSync, writeFileSync as esmWriteFileSync } from 'node:fs';
import { readFile as esmPromisesReadFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify, types } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { fsPlugin } from './index.js';
import { RecordingTracer } from '../test-util/recording-tracer.test-util.js';
import { setupEnv, type Env } from '../test-util/fs-env.test-util.js';

type Fns = Record<string, unknown>;
const fsBefore: Fns = { ...(fs as unknown as Fns) };
const promisesBefore: Fns = { ...(fs.promises as unknown as Fns) };
const realpathNative = fs.realpath.native;
const realpathSyncNative = fs.realpathSync.native;

/** Everything else in node:fs that does I/O goes through these (see README). */
const WRAPPED_FS = (
  'access accessSync chmod chmodSync chown chownSync close closeSync copyFile copyFileSync existsSync fchmod fchmodSync ' +
  'fchown fchownSync fdatasync fdatasyncSync fstat fstatSync fsync fsyncSync ftruncate ftruncateSync futimes futimesSync ' +
  'lchown lchownSync link linkSync lstat lstatSync lutimes lutimesSync mkdir mkdirSync mkdtemp mkdtempSync open openSync ' +
  'opendir opendirSync read readFile readFileSync readSync readdir readdirSync readlink readlinkSync readv readvSync ' +
  'realpath realpathSync rename renameSync rm rmSync rmdir rmdirSync stat statSync statfs statfsSync symlink symlinkSync ' +
  'truncate truncateSync unlink unlinkSync utimes utimesSync write writeFileSync writeSync writev writevSync'
).split(' ');
const WRAPPED_PROMISES = (
  'access appendFile chmod chown copyFile lchmod lchown link lstat lutimes mkdir mkdtemp open opendir readFile readdir ' +
  'readlink realpath rename rm rmdir stat statfs symlink truncate unlink utimes writeFile'
).split(' ');

let env: Env;
afterEach(() => env?.close());

function changed(now: Fns, before: Fns): string[] {
  return Object.keys(before).filter((k) => now[k] !== before[k]);
}

describe('the wrappers look and behave like the originals', () => {
  test('name, length and own properties are kept; teardown restores every original', () => {
    env = setupEnv();
    const f = fs as unknown as Fns;
    const wrapped = changed(f, fsBefore);
    const wrappedP = changed(fs.promises as unknown as Fns, promisesBefore);
    expect(wrapped.sort()).toEqual(WRAPPED_FS);
    expect(wrappedP.sort()).toEqual(WRAPPED_PROMISES);
    for (const [now, before, keys] of [
      [f, fsBefore, wrapped],
      [fs.promises as unknown as Fns, promisesBefore, wrappedP],
    ] as const) {
      for (const k of keys) {
        const w = now[k] as (...a: unknown[]) => unknown;
        const o = before[k] as (...a: unknown[]) => unknown;
        expect(w.name, k).toBe(o.name);
        expect(w.length, k).toBe(o.length);
        expect(types.isAsyncFunction(w), k).toBe(types.isAsyncFunction(o));
        expect(Object.prototype.hasOwnProperty.call(w, 'prototype'), k).toBe(Object.prototype.hasOwnProperty.call(o, 'prototype'));
        for (const key of Reflect.ownKeys(o)) if (key !== 'prototype' && key !== 'native') expect(Reflect.get(w, key), `${k}.${String(key)}`).toBe(Reflect.get(o, key));
      }
    }
    // not wrapped: they go through wrapped functions
    for (const k of ['exists', 'appendFile', 'appendFileSync', 'writeFile', 'createReadStream', 'createWriteStream']) expect(wrapped).not.toContain(k);
    expect(fs.realpath.native).not.toBe(realpathNative);
    expect(fs.realpathSync.native).not.toBe(realpathSyncNative);
    expect(fs.realpath.native.name).toBe(realpathNative.name);
    env.close();
    expect(changed(f, fsBefore)).toEqual([]);
    expect(changed(fs.promises as unknown as Fns, promisesBefore)).toEqual([]);
    expect(fs.realpath.native).toBe(realpathNative);
  });

  test('util.promisify keeps the custom forms of read, write, readv, writev and exists', async () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    const fd = fs.openSync(p, 'w+');
    const w = await promisify(fs.write)(fd, Buffer.from('abcdef'), 0, 6, 0);
    expect(w.bytesWritten).toBe(6);
    expect(Buffer.isBuffer(w.buffer)).toBe(true);
    const r = await promisify(fs.read)(fd, Buffer.alloc(6), 0, 6, 0);
    expect(r.bytesRead).toBe(6);
    expect(r.buffer.toString()).toBe('abcdef');
    const rv = await promisify(fs.readv)(fd, [Buffer.alloc(3)], 0);
    expect(rv.bytesRead).toBe(3);
    expect(await promisify(fs.exists)(p)).toBe(true);
    fs.closeSync(fd);
    expect(env.tr.names()).toEqual(['open', 'pwrite', 'pread', 'preadv', 'access', 'close']);
  });

  test('FileHandle methods stay plain methods; close stays an own property that ignores this', async () => {
    env = setupEnv();
    const fh = await fs.promises.open(join(env.data, 'f'), 'w');
    const proto = Object.getPrototypeOf(fh) as Fns;
    const read = proto.read as () => unknown;
    expect(read.name).toBe('read');
    expect(Object.prototype.hasOwnProperty.call(read, 'prototype')).toBe(false);
    expect(types.isAsyncFunction(read)).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(fh, 'close')).toBe(true);
    const { close } = fh; // an arrow function in Node: works detached
    await close();
    expect(env.tr.names()).toEqual(['open', 'close']);
    env.close();
    expect(Object.getPrototypeOf(fh).read).not.toBe(read); // restored
  });

  test('detached wrappers work, and wrappers kept after teardown pass straight through', () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    const { writeFileSync, readFileSync, openSync, readSync, closeSync } = fs;
    writeFileSync(p, 'abc');
    const fd = openSync(p, 'r');
    expect(readSync(fd, Buffer.alloc(3))).toBe(3);
    closeSync(fd);
    expect(env.tr.names()).toEqual(['open', 'write', 'close', 'open', 'read', 'close']);
    const tr = env.tr;
    tr.clear();
    env.close();
    fs.mkdirSync(env.data, { recursive: true });
    writeFileSync(p, 'abcd');
    expect(readFileSync(p, 'utf8')).toBe('abcd');
    expect(tr.events).toEqual([]);
    fs.rmSync(env.root, { recursive: true, force: true });
  });

  test('ESM named imports of node:fs and node:fs/promises see the wrappers (syncBuiltinESMExports)', async () => {
    env = setupEnv();
    const p = join(env.data, 'esm');
    esmWriteFileSync(p, 'abc');
    expect(esmReadFileSync(p, 'utf8')).toBe('abc');
    expect(await esmPromisesReadFile(p, 'utf8')).toBe('abc');
    expect(env.tr.names()).toEqual(['open', 'write', 'close', 'open', 'read', 'close', 'open', 'fstat', 'read', 'close']);
    env.close();
    expect(esmReadFileSync).toBe(fsBefore.readFileSync);
  });
});

describe('the tracer never breaks the program', () => {
  test('every tracer call throwing: the operations still work, one warning', async () => {
    env = setupEnv();
    env.tr.failAfter = 0;
    const p = join(env.data, 'f');
    fs.writeFileSync(p, 'abc');
    fs.writeFileSync(p, Buffer.from('abcd'));
    expect(fs.readFileSync(p, 'utf8')).toBe('abcd');
    expect(fs.readFileSync(p).length).toBe(4);
    const fd = fs.openSync(p, 'r');
    expect(fs.readSync(fd, Buffer.alloc(4), 0, 4, 0)).toBe(4);
    fs.closeSync(fd);
    expect(await new Promise((r) => fs.readFile(p, 'utf8', (_e, d) => r(d)))).toBe('abcd');
    expect(await fs.promises.readFile(p, 'utf8')).toBe('abcd');
    const fh = await fs.promises.open(p);
    expect((await fh.read(Buffer.alloc(4), 0, 4, 0)).bytesRead).toBe(4);
    await fh.close();
    expect(fs.statSync(p).size).toBe(4);
    await fs.promises.rm(p);
    expect(() => fs.statSync(p)).toThrow(/ENOENT/);
    expect(env.tr.logs).toHaveLength(1);
    expect(env.tr.logs[0]!.level).toBe('WARN');
  });

  test('the tracer failing after files were opened: every form still works, one warning', async () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    fs.writeFileSync(p, 'abcd');
    const fd = fs.openSync(p, 'r+');
    const fh = await fs.promises.open(p, 'r+');
    env.tr.failAfter = env.tr.calls;
    expect(fs.readSync(fd, Buffer.alloc(4), 0, 4, 0)).toBe(4);
    expect(fs.writeSync(fd, 'xy', 4)).toBe(2);
    expect(fs.fstatSync(fd).size).toBe(6);
    expect(await new Promise((r) => fs.read(fd, Buffer.alloc(6), 0, 6, 0, (_e, n) => r(n)))).toBe(6);
    expect(await new Promise((r) => fs.readFile(fd, (_e, d) => r(d.length)))).toBe(6); // preads left the position at 0
    expect(fs.readFileSync(p, 'utf8')).toBe('abcdxy');
    expect(fs.readFileSync(p).length).toBe(6);
    expect(await new Promise((r) => fs.readFile(p, 'utf8', (_e, d) => r(d)))).toBe('abcdxy');
    expect(await fs.promises.readFile(p, 'utf8')).toBe('abcdxy');
    expect((await fh.read(Buffer.alloc(6), 0, 6, 0)).bytesRead).toBe(6);
    expect((await fh.readFile()).length).toBe(6);
    await fh.close();
    await new Promise((r) => fs.close(fd, r));
    await new Promise((r) => fs.stat(p, r));
    expect(env.tr.logs).toHaveLength(1);
  });

  test('bad arguments: the original error, thrown the same way', async () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    const grab = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    env.close();
    const plain = [
      grab(() => fs.readSync(-5 as number, Buffer.alloc(1))),
      grab(() => fs.openSync(p, 'bogus-flag')),
      grab(() => fs.read(0, Buffer.alloc(1), 0, 1, 0, 'nope' as never)),
      grab(() => fs.readFile(p, 'utf8', 'nope' as never)),
    ].map((e) => [(e as Error).constructor.name, (e as NodeJS.ErrnoException).code]);
    env = setupEnv();
    const p2 = join(env.data, 'f');
    const traced = [
      grab(() => fs.readSync(-5 as number, Buffer.alloc(1))),
      grab(() => fs.openSync(p2, 'bogus-flag')),
      grab(() => fs.read(0, Buffer.alloc(1), 0, 1, 0, 'nope' as never)),
      grab(() => fs.readFile(p2, 'utf8', 'nope' as never)),
    ].map((e) => [(e as Error).constructor.name, (e as NodeJS.ErrnoException).code]);
    expect(traced).toEqual(plain);
    await expect(fs.promises.open(p2, 'bogus-flag')).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
  });

  test('a second installation in the same thread is refused with a warning', () => {
    env = setupEnv();
    const tr2 = new RecordingTracer([env.data]);
    expect(fsPlugin().setup(tr2)).toBeUndefined();
    expect(tr2.logs[0]!.message).toMatch(/already installed/);
    fs.writeFileSync(join(env.data, 'f'), 'x');
    expect(env.tr.names()).toEqual(['open', 'write', 'close']);
    expect(tr2.events).toEqual([]);
  });
});

describe('nesting', () => {
  test('sync events are children of the current span; async ones of the span current at the call', async () => {
    env = setupEnv();
    const p = join(env.data, 'f');
    const outer = env.tr.enter();
    fs.writeFileSync(p, 'abc');
    const done = new Promise((r) => fs.stat(p, r));
    env.tr.exit(outer, 'outer', 'app');
    await done;
    const ev = env.tr.posix();
    expect(ev.map((e) => [e.name, e.parentId, e.level])).toEqual([
      ['open', outer.id, 2],
      ['write', outer.id, 2],
      ['close', outer.id, 2],
      ['stat', outer.id, 2],
    ]);
  });
});
