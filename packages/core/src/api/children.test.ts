import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems, type TraceEvent } from '@dftracer/testing';
import { cleanEnv, writeModule } from '../test-util/node-process.test-util.js';

/**
 * child_process and cluster children are processes of their own: they inherit the tracer's
 * resolved settings through the environment and each writes its own file. Worker threads write
 * into their process's file with their own tid. Across all files, every event is there once.
 */

const N = 2000;

// A child: traces N events labelled with its role. With INIT=1 it calls initializeLog() itself
// (no options: everything comes from the inherited environment); otherwise it only imports the
// package and relies on the register entry having been preloaded.
const CHILD = `
import { initializeLog, dftFn, getTracer, finalize } from CORE;
import cluster from 'node:cluster';
const role = cluster.isWorker ? 'cluster-' + cluster.worker.id : process.argv[2];
if (process.env.INIT === '1') initializeLog();
const t = getTracer();
const d = dftFn('child');
d.update({ args: { role } });
const ev = d.log(function ev(step) { return step; });
for (let i = 0; i < ${N}; i++) ev(i);
console.log(JSON.stringify({ role, pid: process.pid, traced: t !== null, logFile: t?.config.logFile ?? null, dataDirs: t?.config.dataDirs ?? null, nodeOptions: process.env.NODE_OPTIONS ?? null }));
if (cluster.isWorker) process.exit(0);
`;

/** Every labelled event across files, keyed role/step: each exactly once, each file valid and closed. */
function collect(files: string[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const f of files) {
    const t = readTrace(f);
    expect(traceProblems(t), f).toEqual([]);
    expect(t.complete[0]!.name).toBe('start');
    expect(t.complete.at(-1)!.name).toBe('end');
    expect(new Set(t.events.map((e) => e.pid)).size).toBe(1);
    for (const e of t.complete) {
      if (e.name !== 'ev') continue;
      const key = `${String(e.args!.role)}/${String(e.args!.step)}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  return seen;
}

function expectEachOnce(seen: Map<string, number>, roles: string[]) {
  for (const role of roles) for (let i = 0; i < N; i++) expect(seen.get(`${role}/${i}`), `${role}/${i}`).toBe(1);
  expect(seen.size).toBe(roles.length * N);
}

describe('child processes', () => {
  it('fork, spawn (from another cwd) and cluster workers inherit the settings of a parent configured in code and write their own files', () => {
    const dir = tempDir('dft-children-');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(join(dir, 'data'));
    const child = writeModule(dir, CHILD, 'child.mjs');
    const r = spawnSync(process.execPath, [writeModule(dir, `
      import { initializeLog, dftFn, finalize } from CORE;
      import { fork, spawn } from 'node:child_process';
      import cluster from 'node:cluster';
      const before = process.env.NODE_OPTIONS ?? null;
      // Configured in code only: the environment has no DFTRACER_* at all.
      initializeLog({ enable: true, logFile: 'traces/run', dataDir: 'data', compression: false, writeBufferSize: 4096 });
      const exited = (cp) => new Promise((res, rej) => cp.on('exit', (code) => (code === 0 ? res() : rej(new Error('child exit ' + code)))));
      await exited(fork(${JSON.stringify(child)}, ['fork'], { env: { ...process.env, INIT: '1' } }));
      await exited(spawn(process.execPath, [${JSON.stringify(child)}, 'spawn'], { cwd: ${JSON.stringify(elsewhere)}, stdio: 'inherit', env: { ...process.env, INIT: '1' } }));
      cluster.setupPrimary({ exec: ${JSON.stringify(child)}, args: [] });
      await Promise.all([1, 2].map(() => exited(cluster.fork({ INIT: '1' }))));
      const ev = dftFn('child').update({ args: { role: 'parent' } }).log(function ev(step) { return step; });
      for (let i = 0; i < ${N}; i++) ev(i);
      finalize();
      console.log(JSON.stringify({ role: 'after-finalize', enable: process.env.DFTRACER_ENABLE ?? null, logFile: process.env.DFTRACER_LOG_FILE ?? null, nodeOptions: process.env.NODE_OPTIONS ?? null, before }));
    `, 'parent.mjs')], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv() }, timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const reports = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const kids = reports.filter((x) => x.role !== 'after-finalize');
    expect(kids.map((k) => k.role).sort()).toEqual(['cluster-1', 'cluster-2', 'fork', 'spawn']);
    for (const k of kids) {
      expect(k.traced).toBe(true);
      expect(k.logFile).toBe(join(dir, 'traces/run'));
      expect(k.dataDirs).toEqual([join(dir, 'data')]);
    }
    const after = reports.find((x) => x.role === 'after-finalize')!;
    // Programmatic init leaves NODE_OPTIONS alone; finalize puts the environment back.
    expect(kids.every((k) => k.nodeOptions === after.before)).toBe(true);
    expect(after).toMatchObject({ enable: null, logFile: null, nodeOptions: after.before });

    const files = traceFiles(join(dir, 'traces'));
    expect(files).toHaveLength(5);
    expect(traceFiles(elsewhere)).toEqual([]);
    const pids = new Set(files.map((f) => readTrace(f).events[0]!.pid));
    expect(pids.size).toBe(5);
    expectEachOnce(collect(files), ['parent', 'fork', 'spawn', 'cluster-1', 'cluster-2']);
  });

  it('with the register entry preloaded, fork and spawn("node") children are traced without calling initializeLog', () => {
    const dir = tempDir('dft-children-');
    const child = writeModule(dir, CHILD, 'child.mjs');
    const r = spawnSync(process.execPath, ['--import', REGISTER_URL(), writeModule(dir, `
      import { fork, spawn } from 'node:child_process';
      import { dftFn } from CORE;
      const exited = (cp) => new Promise((res, rej) => cp.on('exit', (code) => (code === 0 ? res() : rej(new Error('child exit ' + code)))));
      await exited(fork(${JSON.stringify(child)}, ['fork']));
      await exited(spawn(process.execPath, [${JSON.stringify(child)}, 'spawn'], { stdio: 'inherit' }));
      // A child given an environment without the tracer's variables is not traced: env is the channel.
      await exited(spawn(process.execPath, [${JSON.stringify(child)}, 'bare'], { stdio: 'inherit', env: { PATH: process.env.PATH } }));
      const ev = dftFn('child').update({ args: { role: 'parent' } }).log(function ev(step) { return step; });
      for (let i = 0; i < ${N}; i++) ev(i);
    `, 'parent.mjs')], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(dir, 'reg'), DFTRACER_DATA_DIR: join(dir, 'data') }, timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const reports = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { role: string; traced: boolean; nodeOptions: string | null });
    expect(reports.map((x) => [x.role, x.traced])).toEqual([
      ['fork', true],
      ['spawn', true],
      ['bare', false],
    ]);
    expect(reports[1]!.nodeOptions).toContain(`--import ${REGISTER_URL()}`);
    const files = traceFiles(dir);
    expect(files).toHaveLength(3);
    const seen = collect(files);
    expectEachOnce(
      new Map([...seen].filter(([k]) => !k.startsWith('bare/'))),
      ['parent', 'fork', 'spawn'],
    );
  });
});

function REGISTER_URL(): string {
  return new URL('../../dist/register.js', import.meta.url).href;
}

describe('worker threads', () => {
  it('write into the process file with their own tid and unique ids, also when they end without finalize', () => {
    const dir = tempDir('dft-workers-');
    const worker = writeModule(dir, `
      import { initializeLog, dftFn } from CORE;
      import { workerData } from 'node:worker_threads';
      initializeLog();
      const ev = dftFn('child').update({ args: { role: 'w' + workerData } }).log(function ev(step) { return step; });
      for (let i = 0; i < ${N}; i++) ev(i);
      if (workerData === 3) process.exit(0); // ends the thread here: its exit hook flushes
    `, 'worker.mjs');
    const r = spawnSync(process.execPath, [writeModule(dir, `
      import { initializeLog, dftFn, finalize } from CORE;
      import { Worker } from 'node:worker_threads';
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'wt'))} });
      const ev = dftFn('child').update({ args: { role: 'main' } }).log(function ev(step) { return step; });
      for (let i = 0; i < ${N / 2}; i++) ev(i);
      await Promise.all([0, 1, 2, 3].map((n) => new Promise((res, rej) => new Worker(${JSON.stringify(worker)}, { workerData: n }).on('exit', res).on('error', rej))));
      for (let i = ${N / 2}; i < ${N}; i++) ev(i);
      finalize();
    `)], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '8192' }, timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const files = traceFiles(dir);
    expect(files).toHaveLength(1);
    expectEachOnce(collect(files), ['main', 'w0', 'w1', 'w2', 'w3']);
    const t = readTrace(files[0]!);
    const tidOf = new Map<string, Set<number>>();
    for (const e of t.complete.filter((x: TraceEvent) => x.name === 'ev')) {
      const role = String(e.args!.role);
      if (!tidOf.has(role)) tidOf.set(role, new Set());
      tidOf.get(role)!.add(e.tid);
    }
    const tids = [...tidOf.values()].map((s) => [...s]);
    expect(tids.every((s) => s.length === 1)).toBe(true);
    expect(new Set(tids.flat()).size).toBe(5);
    expect(t.meta.filter((m) => m.name === 'thread_name').length).toBeGreaterThanOrEqual(5);
  });

  it('a worker still tracing when the process finalizes never writes after `end` or into a closed file', () => {
    const dir = tempDir('dft-workers-');
    const worker = writeModule(dir, `
      import { initializeLog, dftFn } from CORE;
      import { parentPort } from 'node:worker_threads';
      initializeLog();
      const ev = dftFn('child').log(function spin(step) { return step; });
      parentPort.postMessage('tracing');
      for (let i = 0; ; i++) ev(i);
    `, 'worker.mjs');
    const r = spawnSync(process.execPath, [writeModule(dir, `
      import { initializeLog, finalize } from CORE;
      import { Worker } from 'node:worker_threads';
      import { openSync, writeSync, closeSync, readFileSync } from 'node:fs';
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'late'))} });
      const ws = [1, 2, 3].map(() => new Worker(${JSON.stringify(worker)}));
      await Promise.all(ws.map((w) => new Promise((res) => w.once('message', res))));
      finalize();
      // The trace's fd number is free now: the program gets it back for a file of its own.
      const mine = ${JSON.stringify(join(dir, 'mine.txt'))};
      const fd = openSync(mine, 'w');
      for (let i = 0; i < 200; i++) writeSync(fd, 'program data ' + i + '\\n');
      await new Promise((res) => setTimeout(res, 100)); // the worker keeps tracing (and flushing) meanwhile
      closeSync(fd);
      const text = readFileSync(mine, 'utf8');
      console.log(text.split('\\n').length === 201 && !text.includes('spin') && !text.includes('\\u001f\\u008b'));
      process.exit(0);
    `)], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '4096', DFTRACER_TRACE_COMPRESSION: '0' }, timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true\n');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.at(-1)!.name).toBe('end');
  });
});
