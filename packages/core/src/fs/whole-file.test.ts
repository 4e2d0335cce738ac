import fs from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { dftHash } from '../recording/hash.js';
import type { Args, Span, Teardown } from '../types.js';
import { fsPlugin } from './index.js';
import { RecordingTracer } from '../test-util/recording-tracer.test-util.js';
import { calls, checkInvariants, setupEnv, type Env } from '../test-util/fs-env.test-util.js';

const { O_CREAT, O_TRUNC, O_WRONLY, O_APPEND, O_RDONLY } = fs.constants;
const W = O_TRUNC | O_CREAT | O_WRONLY;
const A = O_APPEND | O_CREAT | O_WRONLY;
const SIZE = 10_000;

let env: Env;
afterEach(() => env?.close());

/** A file of SIZE ASCII bytes written with the original functions (before tracing sees it). */
function dataFile(name = 'f.txt', size = SIZE): string {
  const p = join(env.data, name);
  env.tr.clear();
  fs.writeFileSync(p, 'x'.repeat(size));
  env.tr.clear();
  return p;
}

/** What a native whole-file read (fs.readFile, fs.promises.readFile) of a SIZE-byte file records. */
function nativeReadFile(fhash: string): Array<[string, Record<string, unknown>]> {
  return [
    ['open', { fhash, flags: O_RDONLY }],
    ['fstat', { fhash, ret: 0 }],
    ['read', { fhash, count: SIZE, ret: SIZE }],
    ['close', { fhash, ret: 0 }],
  ];
}

function names(): string[] {
  return env.tr.names();
}

describe('read helpers: exact event lists', () => {
  test('readFileSync (Buffer) goes through the exported open/read/close; its binding fstat is reported', () => {
    env = setupEnv();
    const p = dataFile();
    const buf = fs.readFileSync(p);
    expect(buf.length).toBe(SIZE);
    const h = dftHash(p);
    const ev = env.tr.posix();
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: O_RDONLY, ret: expect.any(Number) }],
      ['fstat', { fhash: h, ret: 0 }],
      ['read', { fhash: h, count: SIZE, ret: SIZE }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    expect(ev[0]!.args.ret).toBeGreaterThanOrEqual(0);
    // the fstat lies between the open and the read
    expect(ev[1]!.ts).toBeGreaterThanOrEqual(ev[0]!.ts + ev[0]!.dur);
    expect(ev[1]!.ts + ev[1]!.dur).toBeLessThanOrEqual(ev[2]!.ts);
    expect(env.tr.files.get(p)).toBe(h);
    checkInvariants(env);
  });

  test('readFileSync with a non-UTF-8 encoding takes the Buffer path', () => {
    env = setupEnv();
    const p = dataFile();
    expect(fs.readFileSync(p, 'latin1')).toHaveLength(SIZE);
    expect(names()).toEqual(['open', 'fstat', 'read', 'close']);
  });

  test("readFileSync 'utf8' is native: open, read, close recorded by the helper", () => {
    env = setupEnv();
    const p = dataFile();
    expect(fs.readFileSync(p, 'utf8')).toHaveLength(SIZE);
    expect(fs.readFileSync(p, { encoding: 'utf-8' })).toHaveLength(SIZE);
    const h = dftHash(p);
    const one = [
      ['open', { fhash: h, flags: O_RDONLY }],
      ['read', { fhash: h, count: SIZE, ret: SIZE }],
      ['close', { fhash: h, ret: 0 }],
    ];
    expect(calls(env)).toEqual([...one, ...one]);
    const [open, read, close] = env.tr.posix();
    expect(open!.dur).toBe(0);
    expect(open!.ts).toBe(read!.ts);
    expect(close!.ts).toBe(read!.ts + read!.dur);
    expect(close!.dur).toBe(0);
  });

  test('readFileSync of multi-byte UTF-8 counts bytes, not characters', () => {
    env = setupEnv();
    const p = join(env.data, 'u.txt');
    fs.writeFileSync(p, Buffer.from('héllo wörld €', 'utf8'));
    env.tr.clear();
    fs.readFileSync(p, 'utf8');
    expect(env.tr.posix()[1]!.args).toMatchObject({ count: 17, ret: 17 });
  });

  test('readFileSync on a traced fd: fstat and read only (the caller opens and closes)', () => {
    env = setupEnv();
    const p = dataFile();
    const fd = fs.openSync(p, 'r');
    fs.readFileSync(fd);
    fs.closeSync(fd);
    expect(names()).toEqual(['open', 'fstat', 'read', 'close']);
    env.tr.clear();
    const fd2 = fs.openSync(p, 'r');
    fs.readFileSync(fd2, 'utf8');
    fs.closeSync(fd2);
    expect(names()).toEqual(['open', 'read', 'close']);
    expect(env.tr.posix()[1]!.args).toMatchObject({ count: SIZE, ret: SIZE });
  });

  test('readFileSync of an empty file reads until 0', () => {
    env = setupEnv();
    const p = dataFile('empty', 0);
    expect(fs.readFileSync(p).length).toBe(0);
    expect(calls(env).map(([n, a]) => [n, a.ret])).toEqual([
      ['open', expect.any(Number)],
      ['fstat', 0],
      ['read', 0],
      ['close', 0],
    ]);
  });

  test('readFileSync of a missing file: one failed open, the same error', () => {
    env = setupEnv();
    const p = join(env.data, 'missing');
    let e1: unknown;
    try {
      fs.readFileSync(p);
    } catch (e) {
      e1 = e;
    }
    expect((e1 as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(() => fs.readFileSync(p, 'utf8')).toThrow(/ENOENT/);
    expect(calls(env)).toEqual([
      ['open', { fhash: dftHash(p), flags: O_RDONLY, ret: -1 }],
      ['open', { fhash: dftHash(p), flags: O_RDONLY, ret: -1 }],
    ]);
  });

  test('readFileSync of a directory: the read fails after the open, and the close is still reported', () => {
    env = setupEnv();
    const d = join(env.data, 'dir');
    fs.mkdirSync(d);
    env.tr.clear();
    expect(() => fs.readFileSync(d)).toThrow(/EISDIR/);
    expect(() => fs.readFileSync(d, 'utf8')).toThrow(/EISDIR/);
    expect(calls(env).map(([n, a]) => [n, a.ret])).toEqual([
      ['open', expect.any(Number)],
      ['fstat', 0],
      ['read', -1],
      ['close', 0],
      ['open', undefined],
      ['read', -1],
      ['close', 0],
    ]);
  });

  test('fs.readFile (callback) is native: open, fstat, read, close', async () => {
    env = setupEnv();
    const p = dataFile();
    const data = await new Promise<Buffer>((res, rej) => fs.readFile(p, (e, d) => (e ? rej(e) : res(d))));
    expect(data.length).toBe(SIZE);
    const text = await new Promise<string>((res, rej) => fs.readFile(p, 'utf8', (e, d) => (e ? rej(e) : res(d))));
    expect(text.length).toBe(SIZE);
    const one = nativeReadFile(dftHash(p));
    expect(calls(env)).toEqual([...one, ...one]);
    checkInvariants(env);
  });

  test('fs.readFile errors: ENOENT is a failed open; the callback gets the error', async () => {
    env = setupEnv();
    const p = join(env.data, 'missing');
    const err = await new Promise((res) => fs.readFile(p, (e) => res(e)));
    expect((err as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(calls(env)).toEqual([['open', { fhash: dftHash(p), flags: O_RDONLY, ret: -1 }]]);
  });

  test('fs.readFile on a traced fd: fstat, read', async () => {
    env = setupEnv();
    const p = dataFile();
    const fd = fs.openSync(p, 'r');
    await new Promise((res) => fs.readFile(fd, res));
    fs.closeSync(fd);
    expect(names()).toEqual(['open', 'fstat', 'read', 'close']);
  });

  test('fs.promises.readFile is native: open, fstat, read, close', async () => {
    env = setupEnv();
    const p = dataFile();
    expect((await fs.promises.readFile(p)).length).toBe(SIZE);
    expect((await fs.promises.readFile(p, { encoding: 'utf8' })).length).toBe(SIZE);
    const one = nativeReadFile(dftHash(p));
    expect(calls(env)).toEqual([...one, ...one]);
    // one call's events share a lane
    const lanes = new Set(env.tr.posix().slice(0, 4).map((e) => e.lane));
    expect(lanes.size).toBe(1);
    checkInvariants(env);
  });

  test('fs.promises.readFile rejects with the same error; ENOENT is a failed open', async () => {
    env = setupEnv();
    const p = join(env.data, 'missing');
    await expect(fs.promises.readFile(p)).rejects.toMatchObject({ code: 'ENOENT', syscall: 'open' });
    expect(calls(env)).toEqual([['open', { fhash: dftHash(p), flags: O_RDONLY, ret: -1 }]]);
  });

  test('concurrent fs.promises.readFile calls land on separate lanes that never overlap', async () => {
    env = setupEnv();
    const ps = [dataFile('a'), dataFile('b'), dataFile('c')];
    env.tr.clear();
    await Promise.all(ps.map((p) => fs.promises.readFile(p)));
    expect(names().filter((n) => n === 'read')).toHaveLength(3);
    expect(new Set(env.tr.posix().map((e) => e.lane)).size).toBe(3);
    checkInvariants(env);
  });

  test('FileHandle#readFile: fstat, read between the handle open and close', async () => {
    env = setupEnv();
    const p = dataFile();
    const fh = await fs.promises.open(p);
    expect((await fh.readFile()).length).toBe(SIZE);
    expect((await fs.promises.readFile(fh)).length).toBe(0); // at EOF now
    await fh.close();
    const h = dftHash(p);
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: O_RDONLY, ret: expect.any(Number) }],
      ['fstat', { fhash: h, ret: 0 }],
      ['read', { fhash: h, count: SIZE, ret: SIZE }],
      ['fstat', { fhash: h, ret: 0 }],
      ['read', { fhash: h, count: 0, ret: 0 }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    checkInvariants(env);
  });
});

describe('write helpers: exact event lists', () => {
  test('writeFileSync of a UTF-8 string is native: open, write, close recorded by the helper', () => {
    env = setupEnv();
    const p = join(env.data, 'w.txt');
    fs.writeFileSync(p, 'héllo');
    const h = dftHash(p);
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: W, mode: 0o666 }],
      ['write', { fhash: h, count: 6, ret: 6 }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    expect(fs.readFileSync(p, 'utf8')).toBe('héllo');
  });

  test('writeFileSync of a Buffer goes through the exported open/write/close', () => {
    env = setupEnv();
    const p = join(env.data, 'w.bin');
    fs.writeFileSync(p, Buffer.alloc(SIZE), { mode: 0o600 });
    const h = dftHash(p);
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: W, mode: 0o600, ret: expect.any(Number) }],
      ['write', { fhash: h, count: SIZE, ret: SIZE }],
      ['close', { fhash: h, ret: 0 }],
    ]);
  });

  test('writeFileSync with flush adds the fsync it does', () => {
    env = setupEnv();
    const p = join(env.data, 'w.bin');
    fs.writeFileSync(p, Buffer.alloc(10), { flush: true });
    expect(names()).toEqual(['open', 'write', 'fsync', 'close']);
  });

  test('appendFileSync is writeFileSync with O_APPEND', () => {
    env = setupEnv();
    const p = join(env.data, 'a.txt');
    fs.appendFileSync(p, 'abc');
    fs.appendFileSync(p, Buffer.from('def'));
    const h = dftHash(p);
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: A, mode: 0o666 }],
      ['write', { fhash: h, count: 3, ret: 3 }],
      ['close', { fhash: h, ret: 0 }],
      ['open', { fhash: h, flags: A, mode: 0o666, ret: expect.any(Number) }],
      ['write', { fhash: h, count: 3, ret: 3 }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    expect(fs.readFileSync(p, 'utf8')).toBe('abcdef');
  });

  test('writeFileSync into a missing directory: one failed open', () => {
    env = setupEnv();
    const p = join(env.data, 'no', 'such');
    expect(() => fs.writeFileSync(p, 'x')).toThrow(/ENOENT/);
    expect(() => fs.writeFileSync(p, Buffer.from('x'))).toThrow(/ENOENT/);
    expect(calls(env).map(([n, a]) => [n, a.ret])).toEqual([
      ['open', -1],
      ['open', -1],
    ]);
  });

  test('fs.writeFile / fs.appendFile (callback) go through the exported open/write/close', async () => {
    env = setupEnv();
    const p = join(env.data, 'w.txt');
    await new Promise((res) => fs.writeFile(p, 'x'.repeat(SIZE), res));
    await new Promise((res) => fs.appendFile(p, 'yz', res));
    const h = dftHash(p);
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: W, mode: 0o666, ret: expect.any(Number) }],
      ['write', { fhash: h, count: SIZE, ret: SIZE }],
      ['close', { fhash: h, ret: 0 }],
      ['open', { fhash: h, flags: A, mode: 0o666, ret: expect.any(Number) }],
      ['write', { fhash: h, count: 2, ret: 2 }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    checkInvariants(env);
  });

  test('fs.promises.writeFile / appendFile are native: open, write, close', async () => {
    env = setupEnv();
    const p = join(env.data, 'w.txt');
    await fs.promises.writeFile(p, 'x'.repeat(SIZE));
    await fs.promises.appendFile(p, Buffer.from('yz'));
    await fs.promises.writeFile(p, 'abc', { flush: true });
    const h = dftHash(p);
    expect(calls(env)).toEqual([
      ['open', { fhash: h, flags: W, mode: 0o666 }],
      ['write', { fhash: h, count: SIZE, ret: SIZE }],
      ['close', { fhash: h, ret: 0 }],
      ['open', { fhash: h, flags: A, mode: 0o666 }],
      ['write', { fhash: h, count: 2, ret: 2 }],
      ['close', { fhash: h, ret: 0 }],
      ['open', { fhash: h, flags: W, mode: 0o666 }],
      ['write', { fhash: h, count: 3, ret: 3 }],
      ['fsync', { fhash: h, ret: 0 }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    checkInvariants(env);
  });

  test('fs.promises.writeFile of an iterable: the bytes are unknown and left out', async () => {
    env = setupEnv();
    const p = join(env.data, 'it.txt');
    await fs.promises.writeFile(p, ['a', 'b', 'c']);
    expect(calls(env)).toEqual([
      ['open', { fhash: dftHash(p), flags: W, mode: 0o666 }],
      ['write', { fhash: dftHash(p) }],
      ['close', { fhash: dftHash(p), ret: 0 }],
    ]);
  });

  test('FileHandle#writeFile / appendFile: one write between the handle open and close', async () => {
    env = setupEnv();
    const p = join(env.data, 'fh.txt');
    const fh = await fs.promises.open(p, 'w');
    await fh.writeFile('abc');
    await fh.appendFile('de');
    await fs.promises.writeFile(fh, 'f');
    await fh.close();
    expect(calls(env).map(([n, a]) => [n, a.count, a.ret])).toEqual([
      ['open', undefined, expect.any(Number)],
      ['write', 3, 3],
      ['write', 2, 2],
      ['write', 1, 1],
      ['close', undefined, 0],
    ]);
    expect(fs.readFileSync(p, 'utf8')).toBe('abcdef');
  });
});

describe('streams go through the callback primitives', () => {
  test('createReadStream piped to an untraced file: open, 64 KiB reads, the final 0-byte read, close', async () => {
    env = setupEnv();
    const size = 150_000;
    const p = dataFile('big', size);
    const out = join(env.outside, 'copy');
    await pipeline(fs.createReadStream(p), fs.createWriteStream(out));
    expect(fs.statSync(out).size).toBe(size);
    const h = dftHash(p);
    expect(calls(env).filter(([n]) => n !== 'stat')).toEqual([
      ['open', { fhash: h, flags: O_RDONLY, ret: expect.any(Number) }],
      ['read', { fhash: h, count: 65536, ret: 65536 }],
      ['read', { fhash: h, count: 65536, ret: 65536 }],
      ['read', { fhash: h, count: 65536, ret: size - 2 * 65536 }],
      ['read', { fhash: h, count: 65536, ret: 0 }],
      ['close', { fhash: h, ret: 0 }],
    ]);
    checkInvariants(env);
  });

  test('createReadStream with start/end: preads at the offsets', async () => {
    env = setupEnv();
    const p = dataFile();
    const chunks: Buffer[] = [];
    await pipeline(fs.createReadStream(p, { start: 100, end: 199 }), async function* (src) {
      for await (const c of src) chunks.push(c as Buffer);
    });
    expect(Buffer.concat(chunks).length).toBe(100);
    expect(calls(env).map(([n, a]) => [n, a.count, a.offset, a.ret])).toEqual([
      ['open', undefined, undefined, expect.any(Number)],
      ['pread', 100, 100, 100],
      ['close', undefined, undefined, 0],
    ]);
  });

  test('createWriteStream: open, write/writev, close; bytes add up', async () => {
    env = setupEnv();
    const p = join(env.data, 'ws');
    const ws = fs.createWriteStream(p);
    for (let i = 0; i < 10; i++) ws.write(Buffer.alloc(1000));
    ws.end('tail');
    await new Promise<void>((res) => ws.on('close', () => res()));
    const ev = calls(env);
    expect(ev[0]![0]).toBe('open');
    expect(ev[ev.length - 1]![0]).toBe('close');
    const mid = ev.slice(1, -1);
    expect(mid.every(([n]) => n === 'write' || n === 'writev')).toBe(true);
    expect(mid.reduce((s, [, a]) => s + (a.ret as number), 0)).toBe(10_004);
    checkInvariants(env);
  });
});

describe('async markers and lanes', () => {
  test('with explicit end times: open and fstat at the start, close at the end, on the call\'s lane', async () => {
    env = setupEnv();
    const p = dataFile();
    await fs.promises.readFile(p);
    const [open, fstat, read, close] = env.tr.posix();
    expect([open!.name, fstat!.name, read!.name, close!.name]).toEqual(['open', 'fstat', 'read', 'close']);
    expect([open!.dur, fstat!.dur, close!.dur]).toEqual([0, 0, 0]);
    expect(open!.ts).toBe(read!.ts);
    expect(fstat!.ts).toBe(read!.ts);
    expect(close!.ts).toBe(read!.ts + read!.dur);
    expect(new Set([open!.lane, fstat!.lane, read!.lane, close!.lane]).size).toBe(1);
  });

  test('a tracer whose exit takes no end time: markers follow the data event, lanes stay valid', async () => {
    const plain = setupEnv();
    plain.close();
    // exit(span, name, cat, args): ends are always "now"
    class NoEnd extends RecordingTracer {
      override exit(span: Span, name: string, cat: string, args?: Args): void {
        super.exit(span, name, cat, args);
      }
    }
    const tr = new NoEnd([plain.data]);
    fs.mkdirSync(plain.data, { recursive: true });
    const teardown = fsPlugin().setup(tr) as Teardown;
    try {
      const p = join(plain.data, 'f');
      fs.writeFileSync(p, 'x'.repeat(SIZE));
      tr.clear();
      await Promise.all([fs.promises.readFile(p), fs.promises.readFile(p), new Promise((r) => fs.readFile(p, r))]);
      const ev = tr.posix();
      expect(ev.filter((e) => e.name === 'read').map((e) => e.args.ret)).toEqual([SIZE, SIZE, SIZE]);
      expect(ev.map((e) => e.name).sort()).toEqual(['close', 'close', 'close', 'fstat', 'fstat', 'fstat', 'open', 'open', 'open', 'read', 'read', 'read']);
      const byLane = new Map<number, typeof ev>();
      for (const e of ev) byLane.set(e.lane, [...(byLane.get(e.lane) ?? []), e]);
      for (const l of byLane.values()) {
        l.sort((a, b) => a.ts - b.ts || a.id - b.id);
        for (let i = 1; i < l.length; i++) expect(l[i]!.ts).toBeGreaterThanOrEqual(l[i - 1]!.ts + l[i - 1]!.dur);
      }
    } finally {
      teardown();
      fs.rmSync(plain.root, { recursive: true, force: true });
    }
  });
});
