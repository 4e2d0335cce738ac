import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCrashedTrace, readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import { cleanEnv, start, writeModule } from '../test-util/node-process.test-util.js';

/**
 * DFTRACER_BIND_SIGNALS=1: on SIGINT/SIGTERM/SIGHUP the trace is flushed and closed, and the
 * process then ends exactly as it would without the tracer — killed by the signal when the program
 * has no handler of its own, or however its own handler decides. Without binding the tracer adds
 * no listener at all.
 */

const PRELUDE = `
import { initializeLog, dftFn } from CORE;
const before = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM'), SIGHUP: process.listenerCount('SIGHUP') };
initializeLog({ logFile: process.env.LOG_FILE });
const ev = dftFn('sig').log(function ev(step) { return step; });
for (let i = 0; i < 3000; i++) ev(i);
`;

interface Outcome {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function runWith(dir: string, file: string, env: Record<string, string>): Outcome {
  const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), LOG_FILE: join(dir, 'sig'), DFTRACER_WRITE_BUFFER_SIZE: '16384', ...env }, timeout: 30_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the program untraced, then traced with DFTRACER_BIND_SIGNALS=bind; both must end the same. */
function compare(body: string, bind: '0' | '1') {
  const dir = tempDir('dft-sig-');
  const file = writeModule(dir, PRELUDE + body);
  const off = runWith(dir, file, { DFTRACER_ENABLE: '0', DFTRACER_BIND_SIGNALS: bind });
  expect(traceFiles(dir)).toEqual([]);
  const on = runWith(dir, file, { DFTRACER_ENABLE: '1', DFTRACER_BIND_SIGNALS: bind });
  expect(on).toEqual(off);
  return { off, file: traceFiles(dir)[0]! };
}

function countEv(file: string): number {
  return readTrace(file).complete.filter((e) => e.name === 'ev').length;
}

describe('signals with DFTRACER_BIND_SIGNALS=1', () => {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} with no handler of the program's: every event flushed, end written, killed by ${sig}`, () => {
      const { off, file } = compare(`ev(3000); setInterval(() => {}, 1000); process.kill(process.pid, '${sig}');`, '1');
      expect(off.signal).toBe(sig);
      const t = readTrace(file);
      expect(traceProblems(t)).toEqual([]);
      expect(t.complete.at(-1)!.name).toBe('end');
      expect(countEv(file)).toBe(3001);
    });
  }

  it('a signal sent from outside while the program waits: flushed and closed, killed by the signal', async () => {
    const dir = tempDir('dft-sig-');
    const file = writeModule(dir, PRELUDE + `setInterval(() => {}, 1000); console.log('ready');`);
    const run = start(file, { DFTRACER_ENABLE: '1', DFTRACER_BIND_SIGNALS: '1', LOG_FILE: join(dir, 'sig'), DFTRACER_WRITE_BUFFER_SIZE: '1048576' });
    await run.line((l) => l === 'ready');
    run.child.kill('SIGINT');
    const done = await run.exited;
    expect(done.signal).toBe('SIGINT');
    expect(done.stderr).toBe('');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.at(-1)!.name).toBe('end');
    expect(t.complete.filter((e) => e.name === 'ev')).toHaveLength(3000);
  });

  it("the program's own SIGINT handler that keeps running: behaviour unchanged, events after the signal still traced", () => {
    const { off, file } = compare(`
      let hits = 0;
      process.on('SIGINT', () => {
        hits++;
        console.log('SIGINT handled', hits);
        for (let i = 3000; i < 4000; i++) ev(i);
        if (hits === 2) clearInterval(keep);
        else process.kill(process.pid, 'SIGINT');
      });
      const keep = setInterval(() => {}, 1000);
      process.kill(process.pid, 'SIGINT');
    `, '1');
    expect(off.status).toBe(0);
    expect(off.stdout).toBe('SIGINT handled 1\nSIGINT handled 2\n');
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.at(-1)!.name).toBe('end');
    expect(countEv(file)).toBe(5000);
  });

  it("the program's own handler, registered after initializeLog, that does traced work and exits with its own status", () => {
    const { off, file } = compare(`
      process.on('SIGTERM', () => { for (let i = 3000; i < 3500; i++) ev(i); console.log('bye'); process.exit(143); });
      setInterval(() => {}, 1000);
      process.kill(process.pid, 'SIGTERM');
    `, '1');
    expect(off).toEqual({ status: 143, signal: null, stdout: 'bye\n', stderr: '' });
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.at(-1)!.name).toBe('end');
    expect(countEv(file)).toBe(3500);
  });

  it("the program's own handler, registered before initializeLog, that exits with its own status", () => {
    const dir = tempDir('dft-sig-');
    const withImport = writeModule(dir, `
      import { initializeLog, dftFn } from CORE;
      let ev = () => {};
      process.on('SIGTERM', () => { ev(9999); console.log('bye'); process.exit(143); });
      initializeLog({ logFile: process.env.LOG_FILE });
      ev = dftFn('sig').log(function ev(step) { return step; });
      for (let i = 0; i < 3000; i++) ev(i);
      setInterval(() => {}, 1000);
      process.kill(process.pid, 'SIGTERM');
    `);
    const off = runWith(dir, withImport, { DFTRACER_ENABLE: '0', DFTRACER_BIND_SIGNALS: '1' });
    const on = runWith(dir, withImport, { DFTRACER_ENABLE: '1', DFTRACER_BIND_SIGNALS: '1' });
    expect(off).toEqual({ status: 143, signal: null, stdout: 'bye\n', stderr: '' });
    expect(on).toEqual(off);
    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.at(-1)!.name).toBe('end');
    expect(t.complete.filter((e) => e.name === 'ev')).toHaveLength(3001);
  });
});

describe('signals without binding', () => {
  it('adds no signal listener; the program’s own handlers run exactly as without the tracer', () => {
    const { off, file } = compare(`
      const after = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM'), SIGHUP: process.listenerCount('SIGHUP') };
      console.log(JSON.stringify(before) === JSON.stringify(after));
      process.on('SIGINT', () => { console.log('mine', process.listenerCount('SIGINT')); clearInterval(keep); });
      const keep = setInterval(() => {}, 1000);
      process.kill(process.pid, 'SIGINT');
    `, '0');
    expect(off.stdout).toBe('true\nmine 1\n');
    expect(off.status).toBe(0);
    const t = readTrace(file);
    expect(t.complete.at(-1)!.name).toBe('end');
  });

  it('SIGTERM with no handler kills the program as without the tracer; what was flushed stays readable', () => {
    const { off, file } = compare(`setInterval(() => {}, 1000); process.kill(process.pid, 'SIGTERM');`, '0');
    expect(off.signal).toBe('SIGTERM');
    // Nothing ran at the signal: the file holds what earlier flushes wrote, all of it valid.
    const t = readCrashedTrace(file);
    expect(t.complete[0]!.name).toBe('start');
    expect(t.complete.some((e) => e.name === 'end')).toBe(false);
  });
});
