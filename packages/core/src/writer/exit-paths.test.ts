import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import { cleanEnv, writeModule } from '../test-util/node-process.test-util.js';

/**
 * However a program ends — process.exit, exitCode, an uncaught exception, an unhandled rejection —
 * the trace is flushed and closed (`end` last), and the program's stderr and exit status are
 * exactly what they are without the tracer: the same file is run with DFTRACER_ENABLE=0 and =1.
 */

const PRELUDE = `
import { initializeLog, dftFn } from CORE;
initializeLog({ logFile: process.env.LOG_FILE });
const ev = dftFn('exit').log(function ev(step) { return step; });
for (let i = 0; i < 5000; i++) ev(i);
`;

interface Outcome {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function runBoth(body: string, nodeArgs: string[] = []): { off: Outcome; on: Outcome; dir: string } {
  const dir = tempDir('dft-exit-');
  const file = writeModule(dir, PRELUDE + body);
  const run = (enable: string): Outcome => {
    const r = spawnSync(process.execPath, [...nodeArgs, file], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...cleanEnv(), DFTRACER_ENABLE: enable, DFTRACER_WRITE_BUFFER_SIZE: '16384', LOG_FILE: join(dir, 'exit') },
      timeout: 30_000,
    });
    // Warnings name the pid, which differs between two runs.
    return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr.replace(/\(node:\d+\)/g, '(node:PID)') };
  };
  const off = run('0');
  expect(traceFiles(dir)).toEqual([]);
  return { off, on: run('1'), dir };
}

/** The trace is complete: valid, `end` last, every `ev` the program recorded before it ended. */
function expectClosedTrace(dir: string, evs = 5000) {
  const files = traceFiles(dir);
  expect(files).toHaveLength(1);
  const t = readTrace(files[0]!);
  expect(traceProblems(t)).toEqual([]);
  expect(t.complete.at(-1)!.name).toBe('end');
  expect(t.complete.filter((e) => e.name === 'ev')).toHaveLength(evs);
  return t;
}

describe('exit paths keep the program’s stderr and status and close the trace', () => {
  it('process.exit(code) from the middle of the program', () => {
    const { off, on, dir } = runBoth(`setTimeout(() => { console.log('late'); }, 10); process.exit(7);`);
    expect(off.status).toBe(7);
    expect(on).toEqual(off);
    expectClosedTrace(dir);
  });

  it('process.exit() called inside a traced function: the open span is not written, the rest is', () => {
    const { off, on, dir } = runBoth(`dftFn('exit').log(function leaving() { process.exit(3); })();`);
    expect(off.status).toBe(3);
    expect(on).toEqual(off);
    const t = expectClosedTrace(dir);
    expect(t.complete.some((e) => e.name === 'leaving')).toBe(false);
  });

  it('process.exitCode and a natural end', () => {
    const { off, on, dir } = runBoth(`process.exitCode = 5; setTimeout(() => ev(5000), 5);`);
    expect(off.status).toBe(5);
    expect(on).toEqual(off);
    expectClosedTrace(dir, 5001);
  });

  it('an uncaught exception at top level', () => {
    const { off, on, dir } = runBoth(`throw new TypeError('top-level boom');`);
    expect(off.status).toBe(1);
    expect(off.stderr).toMatch(/TypeError: top-level boom/);
    expect(on).toEqual(off);
    expectClosedTrace(dir);
  });

  it('an uncaught exception in a timer callback', () => {
    const { off, on, dir } = runBoth(`setTimeout(() => { ev(5000); throw new RangeError('timer boom'); }, 1);`);
    expect(off.status).toBe(1);
    expect(off.stderr).toMatch(/RangeError: timer boom/);
    expect(on).toEqual(off);
    expectClosedTrace(dir, 5001);
  });

  it('an unhandled rejection (default mode: fatal)', () => {
    const { off, on, dir } = runBoth(`Promise.reject(new Error('nobody catches me'));`);
    expect(off.status).toBe(1);
    expect(off.stderr).toMatch(/nobody catches me/);
    expect(on).toEqual(off);
    expectClosedTrace(dir);
  });

  it('an unhandled rejection of a non-error value', () => {
    const { off, on, dir } = runBoth(`Promise.reject({ code: 42 });`);
    expect(off.status).toBe(1);
    expect(on).toEqual(off);
    expectClosedTrace(dir);
  });

  it('an unhandled rejection with --unhandled-rejections=warn: the warning and status 0 are kept', () => {
    const { off, on, dir } = runBoth(`Promise.reject(new Error('only a warning')); setTimeout(() => ev(5000), 5);`, ['--unhandled-rejections=warn']);
    expect(off.status).toBe(0);
    expect(off.stderr).toMatch(/only a warning/);
    expect(on).toEqual(off);
    expectClosedTrace(dir, 5001);
  });

  it('a program that handles uncaughtException itself keeps running and tracing', () => {
    const { off, on, dir } = runBoth(`
      process.on('uncaughtException', (e) => { console.log('handled', e.message); setTimeout(() => { ev(5000); ev(5001); }, 1); });
      setTimeout(() => { throw new Error('caught by the program'); }, 1);
    `);
    expect(off.status).toBe(0);
    expect(off.stdout).toBe('handled caught by the program\n');
    expect(on).toEqual(off);
    expectClosedTrace(dir, 5002);
  });

  it('an exception thrown through a traced function: same message, status and program frames', () => {
    const { off, on, dir } = runBoth(`dftFn('exit').log(function thrower() { throw new Error('from inside a span'); })();`);
    expect(off.status).toBe(1);
    expect(on.status).toBe(1);
    // The only difference allowed: the wrapper's own frames in the stack (they name the tracer's file).
    const ours = /^\s+at .*\/dist\/[^/]+\.js:\d+:\d+\)?$/;
    const strip = (s: string) => s.split('\n').filter((l) => !ours.test(l)).join('\n');
    expect(strip(on.stderr)).toBe(off.stderr);
    const t = expectClosedTrace(dir);
    expect(t.complete.filter((e) => e.name === 'thrower')).toHaveLength(1);
  });
});
