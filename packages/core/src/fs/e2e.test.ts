/**
 * End to end: real `node` processes traced by the built package (run `pnpm build` first; turbo's
 * test task does), configured only by DFTRACER_* variables, their trace files read back.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { dftHash } from '../recording/hash.js';
import { readTrace, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';

const PKG = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = join(PKG, 'dist', 'register.js');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Run {
  readonly dir: string;
  readonly data: string;
  readonly outside: string;
  readonly trace: Trace;
  readonly posix: TraceEvent[];
  readonly stdout: string;
}

/** Runs `source` as app.mjs in a fresh dir with `node <nodeArgs> app.mjs`, tracing data/. */
function runApp(source: string, nodeArgs: string[], env: Record<string, string> = {}): Run {
  const dir = mkdtempSync(join(tmpdir(), 'dft-fs-e2e-'));
  dirs.push(dir);
  const data = join(dir, 'data');
  const outside = join(dir, 'outside');
  mkdirSync(data);
  mkdirSync(outside);
  writeFileSync(join(dir, 'app.mjs'), source);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DFTRACER_')));
  const p = spawnSync(process.execPath, [...nodeArgs, 'app.mjs'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...clean, DFTRACER_ENABLE: '1', DFTRACER_DATA_DIR: data, DFTRACER_LOG_FILE: join(dir, 'trace'), ...env },
  });
  expect(p.stderr).toBe('');
  expect(p.status).toBe(0);
  const files = readdirSync(dir).filter((f) => f.startsWith('trace') && f.endsWith('.pfw.gz'));
  expect(files).toHaveLength(1);
  const trace = parse(join(dir, files[0]!));
  return { dir, data, outside, trace, posix: trace.complete.filter((e) => e.cat === 'POSIX'), stdout: p.stdout };
}

/** The trace read back; its first line is `[` and its last `]` (the run finished). */
function parse(file: string): Trace {
  const t = readTrace(file);
  expect(t.lines[0]).toBe('[');
  expect(t.lines[t.lines.length - 1]).toBe(']');
  return t;
}

function fileEvents(r: Run, path: string): TraceEvent[] {
  const h = dftHash(path);
  return r.posix.filter((e) => e.args?.fhash === h);
}

function names(evs: TraceEvent[]): string[] {
  return evs.map((e) => e.name);
}

/**
 * Whether the tracer placed the markers of natively done async calls (open/fstat/close, no
 * timing of their own) at the call's start and end, which needs `Tracer.exit(..., end)`; without
 * it they follow the data event. `steps` lists one such call's events in system-call order.
 */
function exactEnds(r: { posix: TraceEvent[] }): boolean {
  return r.posix.some((e) => e.name === 'open' && e.args!.ret === undefined && e.tid !== e.pid && r.posix.some((d) => d.tid === e.tid && d.ts === e.ts && d.id! > e.id! && (d.name === 'read' || d.name === 'write')));
}
function fused(exact: boolean, steps: string[]): string[] {
  if (exact) return steps;
  const data = steps.find((s) => s === 'read' || s === 'write')!;
  return [data, ...steps.filter((s) => s !== data)];
}

function sumRet(evs: TraceEvent[], name: string): number {
  return evs.filter((e) => e.name === name).reduce((s, e) => s + (e.args!.ret as number), 0);
}

const APP = `
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
const A = 'data/a.bin', B = 'data/b.txt', C = 'data/c.bin', OUT = 'outside/o.txt';
fs.writeFileSync(A, Buffer.alloc(10_000, 1));            // through the exported open/write/close
fs.writeFileSync(B, 'b'.repeat(3_000));                  // native (UTF-8 string)
await fs.promises.writeFile(C, Buffer.alloc(70_000, 3)); // native (promises)
fs.writeFileSync(OUT, 'never traced');
console.log(fs.readFileSync(A).length);                  // open, fstat, read, close
console.log(fs.readFileSync(B, 'utf8').length);          // open, read, close
console.log((await fs.promises.readFile(C)).length);     // open, fstat, read, close
console.log(await new Promise((r) => fs.readFile(B, (e, d) => r(d.length)))); // open, fstat, read, close
await pipeline(fs.createReadStream(C), fs.createWriteStream('outside/copy'));  // open, 64 KiB read, the rest, read 0, close
const fh = await fs.promises.open(A, 'r');
console.log((await fh.read(Buffer.alloc(4096), 0, 4096, 0)).bytesRead);        // pread
await fh.close();
fs.readFileSync(OUT);
console.log(fs.statSync(A).size);
`;

describe('a real process traced through --import register', () => {
  test('exactly the expected POSIX events, byte counts that add up, nothing outside the data dir', () => {
    const r = runApp(APP, ['--import', REGISTER]);
    expect(r.stdout.trim().split('\n')).toEqual(['10000', '3000', '70000', '3000', '4096', '10000']);
    const A = join(r.data, 'a.bin');
    const B = join(r.data, 'b.txt');
    const C = join(r.data, 'c.bin');
    const x = exactEnds(r);
    expect(names(fileEvents(r, A))).toEqual(['open', 'write', 'close', 'open', 'fstat', 'read', 'close', 'open', 'pread', 'close', 'stat']);
    expect(names(fileEvents(r, B))).toEqual(['open', 'write', 'close', 'open', 'read', 'close', ...fused(x, ['open', 'fstat', 'read', 'close'])]);
    expect(names(fileEvents(r, C))).toEqual([...fused(x, ['open', 'write', 'close']), ...fused(x, ['open', 'fstat', 'read', 'close']), 'open', 'read', 'read', 'read', 'close']);
    expect(r.posix).toHaveLength(11 + 10 + 12);
    // bytes: what was written is what was read back
    expect(sumRet(fileEvents(r, A), 'write')).toBe(10_000);
    expect(sumRet(fileEvents(r, A), 'read')).toBe(10_000);
    expect(sumRet(fileEvents(r, B), 'write')).toBe(3_000);
    expect(sumRet(fileEvents(r, B), 'read')).toBe(6_000);
    expect(sumRet(fileEvents(r, C), 'write')).toBe(70_000);
    expect(sumRet(fileEvents(r, C), 'read')).toBe(140_000);
    for (const e of r.posix) if (e.name === 'read' || e.name === 'write') expect(typeof e.args!.ret).toBe('number');
    // the outside files: no event, no FH record
    const fh = r.trace.meta.filter((m) => m.name === 'FH');
    const paths = fh.map((m) => m.args!.name as string);
    expect(paths.some((p) => p.includes('outside'))).toBe(false);
    expect(r.posix.every((e) => paths.includes(resolve(r.data, pathFor(r, e.args!.fhash as string))))).toBe(true);
    // every fhash is resolved by an FH record, once
    const hashes = fh.map((m) => m.args!.value);
    expect(new Set(hashes).size).toBe(hashes.length);
    for (const e of r.posix) expect(hashes).toContain(e.args!.fhash);
    expect(traceProblems(r.trace)).toEqual([]);
    const end = r.trace.complete.find((e) => e.name === 'end');
    expect(end!.args!.plugins).toContain('posix');
  });

  test('DFTRACER_DISABLE_IO=1: no POSIX events', () => {
    const r = runApp(APP, ['--import', REGISTER], { DFTRACER_DISABLE_IO: '1' });
    expect(r.posix).toEqual([]);
  });
});

function pathFor(r: Run, fhash: string): string {
  const m = r.trace.meta.find((x) => x.name === 'FH' && x.args!.value === fhash);
  return (m?.args!.name as string | undefined) ?? '';
}

describe('an unmodified ESM program', () => {
  test('named imports of node:fs and node:fs/promises are traced with --import @dftracer/core/register', () => {
    const source = `
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
writeFileSync('data/x.txt', 'x'.repeat(1234));
console.log(readFileSync('data/x.txt', 'utf8').length);
await writeFile('data/y.bin', new Uint8Array(4321));
console.log((await readFile('data/y.bin')).length);
`;
    const dir = mkdtempSync(join(tmpdir(), 'dft-fs-esm-'));
    dirs.push(dir);
    // the program resolves the package like an installed dependency
    mkdirSync(join(dir, 'node_modules', '@dftracer'), { recursive: true });
    symlinkSync(PKG, join(dir, 'node_modules', '@dftracer', 'core'));
    writeFileSync(join(dir, 'run.mjs'), source);
    mkdirSync(join(dir, 'data'));
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DFTRACER_')));
    const p = spawnSync(process.execPath, ['--import', '@dftracer/core/register', 'run.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...clean, DFTRACER_ENABLE: '1', DFTRACER_DATA_DIR: join(dir, 'data'), DFTRACER_LOG_FILE: join(dir, 'trace') },
    });
    expect(p.stderr).toBe('');
    expect(p.stdout.trim().split('\n')).toEqual(['1234', '4321']);
    const file = readdirSync(dir).find((f) => f.startsWith('trace') && f.endsWith('.pfw.gz'));
    const trace = parse(join(dir, file!));
    const posix = trace.complete.filter((e) => e.cat === 'POSIX');
    const ret: Record<string, unknown> = { open: undefined, fstat: 0, close: 0 };
    const x = exactEnds({ posix });
    expect(posix.map((e) => [e.name, e.args!.ret])).toEqual([
      ['open', undefined],
      ['write', 1234],
      ['close', 0],
      ['open', undefined],
      ['read', 1234],
      ['close', 0],
      ...fused(x, ['open', 'write', 'close']).map((n) => [n, n === 'write' ? 4321 : ret[n]]),
      ...fused(x, ['open', 'fstat', 'read', 'close']).map((n) => [n, n === 'read' ? 4321 : ret[n]]),
    ]);
    expect(traceProblems(trace)).toEqual([]);
  });
});
