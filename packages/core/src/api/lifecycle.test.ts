import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { countGzipMembers, readTrace, tempDir, traceFiles, traceProblems, walkGzipMembers } from '@dftracer/testing';
import { CORE_DIST, REGISTER_DIST, cleanEnv, runModule } from '../test-util/node-process.test-util.js';

const PROGRAM = `
import { initializeLog, dftFn, finalize, getTime } from CORE;
const log = initializeLog({ logFile: process.env.LOG_FILE, dataDir: process.env.DATA });
const d = dftFn('app', 'main');
const leaf = d.log(function leaf(x) { return x + 1; });
const work = d.log(async function work(i) {
  leaf(i);
  await new Promise((r) => setTimeout(r, 2 + (i % 3)));
  leaf(i);
  await Promise.resolve();
  return leaf(i);
});
const out = [];
out.push(leaf(41));
out.push(...(await Promise.all([work(1), work(2), work(3)])));
for (let i = 0; i < Number(process.env.EXTRA ?? 0); i++) leaf(i);
console.log(JSON.stringify({ out, file: log.file, enabled: log.enabled, time: getTime() > 0 }));
finalize();
`;

describe('initializeLog / finalize in a real process', () => {
  it('writes a valid E2 trace whose nesting survives await and concurrent async calls', () => {
    const dir = tempDir();
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', LOG_FILE: join(dir, 'run.pfw') });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const res = JSON.parse(r.stdout) as { out: number[]; file: string; enabled: boolean };
    expect(res.out).toEqual([42, 2, 3, 4]);
    expect(res.file).toMatch(/run-[0-9a-f]{16}-app\.pfw\.gz$/);
    const t = readTrace(res.file);
    expect(traceProblems(t)).toEqual([]);
    expect(t.meta.slice(0, 2).map((m) => m.name)).toEqual(['HH', 'process_name']);
    expect(t.complete[0]!.name).toBe('start');
    expect(t.complete.at(-1)!.name).toBe('end');
    const works = t.complete.filter((e) => e.name === 'work');
    expect(works).toHaveLength(3);
    // Three concurrent async calls: three different lanes, each named by thread_name metadata.
    expect(new Set(works.map((w) => w.tid)).size).toBe(3);
    for (const w of works) {
      const kids = t.complete.filter((e) => e.args?.p_idx === w.id);
      expect(kids.map((k) => k.name)).toEqual(['leaf', 'leaf', 'leaf']);
      expect(t.meta.some((m) => m.name === 'thread_name' && m.tid === w.tid)).toBe(true);
    }
    expect(t.complete.find((e) => e.name === 'start')!.args).toMatchObject({ level: 1, p_idx: -1, ppid: expect.any(Number), version: expect.stringMatching(/^v\d/) });
  });

  it('writes one gzip member per flush; gunzip reads the whole multi-member file', () => {
    const dir = tempDir();
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '2048', EXTRA: '5000', LOG_FILE: join(dir, 'many') });
    expect(r.status).toBe(0);
    const file = traceFiles(dir)[0]!;
    const raw = readFileSync(file);
    expect(countGzipMembers(raw)).toBeGreaterThan(100);
    const viaCli = spawnSync('gunzip', ['-c', file]);
    expect(viaCli.status).toBe(0);
    expect(viaCli.stdout.equals(gunzipSync(raw))).toBe(true);
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.filter((e) => e.name === 'leaf')).toHaveLength(1 + 9 + 5000);
  });

  it('flushes a short first batch (256 events), then batches as large as the buffer', () => {
    const dir = tempDir();
    // 192 bytes an event: a 1,000-event buffer.
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: String(192 * 1000), EXTRA: '4000', LOG_FILE: join(dir, 'batches') });
    expect(r.status).toBe(0);
    const file = traceFiles(dir)[0]!;
    const counts = walkGzipMembers(readFileSync(file)).members.map((m) => m.split('\n').filter((l) => l.startsWith('{"id":') && l.includes(',"ph":"X"')).length);
    const full = counts.findIndex((n) => n > 256);
    expect(full).toBeGreaterThan(0);
    expect(counts.slice(0, full)).toContain(256);
    for (const n of counts.slice(0, full)) expect(n).toBeLessThanOrEqual(256);
    // 4,000 more calls: at least three full batches follow (the rest is written by finalize).
    expect(counts.slice(full, full + 3)).toEqual([1000, 1000, 1000]);
    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    expect(new Set(t.complete.map((e) => e.id)).size).toBe(t.complete.length);
    expect(t.complete.filter((e) => e.name === 'leaf')).toHaveLength(1 + 9 + 4000);
  });

  it('writes the same lines, as valid multi-member gzip, with each encoder', () => {
    const texts: string[] = [];
    // zlib at its fastest (the default), a middle level and its strongest.
    for (const level of ['1', '4', '9']) {
      const dir = tempDir();
      const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_COMPRESSION_LEVEL: level, EXTRA: '20000', LOG_FILE: join(dir, `lvl${level}`) });
      expect(r.status, `level ${level}: signal ${r.signal}, error ${r.error?.message}, stderr ${r.stderr.slice(0, 2000)}`).toBe(0);
      const file = traceFiles(dir)[0]!;
      const t = readTrace(file);
      expect(traceProblems(t)).toEqual([]);
      expect(t.complete.filter((e) => e.name === 'leaf')).toHaveLength(1 + 9 + 20000);
      expect(spawnSync('gzip', ['-t', file]).status).toBe(0);
      texts.push(t.complete.map((e) => e.name).join());
    }
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
  });

  it('writes plain lines without compression and no args without metadata', () => {
    const dir = tempDir();
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_TRACE_COMPRESSION: '0', DFTRACER_INC_METADATA: '0', LOG_FILE: join(dir, 'plain') });
    expect(r.status).toBe(0);
    const file = traceFiles(dir)[0]!;
    expect(file.endsWith('.pfw')).toBe(true);
    const t = readTrace(file);
    expect(t.complete.every((e) => e.args === undefined)).toBe(true);
    expect(traceProblems(t)).toEqual([]);
  });

  it('creates no file and changes nothing when DFTRACER_ENABLE is not 1', () => {
    const dir = tempDir();
    const enabled = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', LOG_FILE: join(dir, 'on') });
    const off = tempDir();
    const r = runModule(off, PROGRAM + `
      const f = function named(a, b) { return a + b; };
      const w = dftFn('x').log(f);
      console.log(w === f, w.name, w.length, w(2, 3));
    `, { LOG_FILE: join(off, 'off') });
    expect(r.status).toBe(0);
    const [first, second] = r.stdout.trim().split('\n');
    expect(JSON.parse(first!)).toEqual({ ...JSON.parse(enabled.stdout), file: null, enabled: false, time: false });
    expect(second).toBe('true named 2 5');
    expect(readdirSync(off).filter((f) => f.includes('.pfw'))).toEqual([]);
  });

  it('traces functions decorated at import time once initializeLog({ enable: true }) runs later', () => {
    const dir = tempDir();
    const r = runModule(dir, `
      import { initializeLog, dftFn, finalize } from CORE;
      const early = dftFn('early').log(function decoratedEarly(x) { return x * 2; });
      const before = early(1); // no tracer yet: called straight through
      initializeLog({ enable: true, logFile: ${JSON.stringify(join(dir, 'late'))} });
      const after = early(2);
      finalize();
      console.log(before, after, early.name, early.length);
    `);
    expect(r.stdout.trim()).toBe('2 4 decoratedEarly 1');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(t.complete.filter((e) => e.name === 'decoratedEarly')).toHaveLength(1);
  });

  it('traces an unmodified CommonJS program under --require @dftracer/core/register, sharing one tracer with require()', () => {
    const dir = tempDir();
    const data = join(dir, 'data');
    mkdirSync(data);
    const app = join(dir, 'app.cjs');
    writeFileSync(app, `
      const fs = require('node:fs');
      fs.writeFileSync(${JSON.stringify(join(data, 'x.bin'))}, Buffer.alloc(2048, 3));
      const n = fs.readFileSync(${JSON.stringify(join(data, 'x.bin'))}).length;
      const { dftFn } = require(${JSON.stringify(CORE_DIST.replace(/index\.js$/, 'index.cjs'))});
      console.log(dftFn('app').log(function computeThing(x) { return x + n; })(1));
    `);
    const r = spawnSync(process.execPath, ['--require', REGISTER_DIST.replace(/\.js$/, '.cjs'), app], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...cleanEnv(), DFTRACER_ENABLE: '1', DFTRACER_DATA_DIR: data, DFTRACER_LOG_FILE: join(dir, 'cjs') },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('2049');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.filter((e) => e.cat !== 'dftracer').map((e) => `${e.cat}/${e.name}`)).toEqual([
      'POSIX/open', 'POSIX/write', 'POSIX/close', 'POSIX/open', 'POSIX/fstat', 'POSIX/read', 'POSIX/close', 'app/computeThing',
    ]);
    expect(t.complete.filter((e) => e.name === 'read')[0]!.args!.ret).toBe(2048);
  });

  it('reports a bad variable by name and runs the program untraced', () => {
    const dir = tempDir();
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: 'big', LOG_FILE: join(dir, 'bad') });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/DFTRACER_WRITE_BUFFER_SIZE="big" is not valid; accepted values: an integer/);
    expect(JSON.parse(r.stdout).out).toEqual([42, 2, 3, 4]);
    expect(traceFiles(dir)).toEqual([]);
  });

  it('warns once about an unwritable log directory; the program and its exit status are unharmed', () => {
    const dir = tempDir();
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    const asRoot = process.getuid?.() === 0;
    // root ignores directory modes; a path under a regular file is unwritable for everyone.
    const target = asRoot ? join(dir, 'app-file-not-dir', 'x', 'trace') : join(locked, 'trace');
    if (asRoot) runModule(dir, `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(join(dir, 'app-file-not-dir'))}, '');`);
    const r = runModule(dir, PROGRAM + '\nprocess.exitCode = 3;', { DFTRACER_ENABLE: '1', LOG_FILE: target });
    expect(r.status).toBe(3);
    expect(JSON.parse(r.stdout).out).toEqual([42, 2, 3, 4]);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^dftracer: cannot create the trace file .*tracing is off$/);
  });

  it('keeps every line valid JSON for names and args with quotes, newlines, control characters and lone surrogates', () => {
    const dir = tempDir();
    const names = ['quote " and \\ backslash', 'new\nline\r\t', 'ctl \u0000\u0001\u001f\u007f', 'lone \ud800 high', 'lone \udc00 low', 'emoji 😀', '</script>'];
    const r = runModule(dir, `
      import { initializeLog, dftFn, finalize, logMetadata } from CORE;
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'nasty'))} });
      for (const n of ${JSON.stringify(names)}) {
        const d = dftFn(n, n);
        d.update({ args: { [n]: n, big: 12345678901234567890n, nan: NaN, inf: -Infinity, negz: -0, obj: { n, arr: [1, n] } } });
        d.run(() => 0);
        logMetadata(n, n);
      }
      finalize();
    `, { DFTRACER_ENABLE: '1' });
    expect(r.stderr).toBe('');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    const evs = t.complete.filter((e) => e.cat !== 'dftracer' && e.cat !== 'POSIX');
    expect(evs.map((e) => e.name)).toEqual(names);
    for (const [i, e] of evs.entries()) {
      const n = names[i]!;
      expect(e.cat).toBe(n);
      expect(e.args![n]).toBe(n);
      expect(e.args).toMatchObject({ big: '12345678901234567890', nan: 'NaN', inf: '-Infinity', negz: 0, obj: { n, arr: [1, n] } });
    }
    expect(t.meta.filter((m) => m.name === 'CM').map((m) => [m.args!.name, m.args!.value])).toEqual(names.map((n) => [n, n]));
  });

  it('is idempotent: double init, double finalize, events after finalize are dropped, init after finalize writes a new file', () => {
    const dir = tempDir();
    const r = runModule(dir, `
      import { initializeLog, dftFn, finalize } from CORE;
      const a = initializeLog({ logFile: ${JSON.stringify(join(dir, 'idem'))} });
      const b = initializeLog({ logFile: ${JSON.stringify(join(dir, 'other'))} });
      const f = dftFn('c', 'n').log(function f() { return 1; });
      f();
      finalize(); finalize();
      f(); f();
      const c = initializeLog({ logFile: ${JSON.stringify(join(dir, 'idem'))} });
      f();
      c.finalize();
      console.log(JSON.stringify([a.file === b.file, a.file !== c.file]));
    `, { DFTRACER_ENABLE: '1' });
    // the second call's other logFile is said, not silently dropped (init-options.test.ts)
    expect(r.stderr).toBe(`dftracer: WARN: initializeLog: tracing already runs; this call's options were ignored: logFile ${JSON.stringify(join(dir, 'other'))} (running: ${JSON.stringify(join(dir, 'idem'))})\n`);
    expect(JSON.parse(r.stdout)).toEqual([true, true]);
    const files = traceFiles(dir).sort();
    expect(files).toHaveLength(2);
    const counts = files.map((f) => readTrace(f).complete.filter((e) => e.name === 'f').length).sort();
    expect(counts).toEqual([1, 1]);
    for (const f of files) expect(traceProblems(readTrace(f))).toEqual([]);
  });

  it('drops and counts events that end after finalize, never writing the closed file or the program\'s file that reuses its fd', () => {
    const dir = tempDir();
    const mine = join(dir, 'mine.txt');
    const r = runModule(dir, `
      import { initializeLog, dftFn, finalize, logMetadata } from CORE;
      import { openSync, writeSync, closeSync, readFileSync } from 'node:fs';
      const log = initializeLog({ logFile: ${JSON.stringify(join(dir, 'late'))} });
      const slow = dftFn('c').log(async function slow() { await new Promise((r) => setTimeout(r, 20)); });
      const pending = [slow(), slow(), slow()];
      const region = dftFn('c', 'region').start();
      finalize();
      const fd = openSync(${JSON.stringify(mine)}, 'w');
      writeSync(fd, 'mine\\n');
      await Promise.all(pending); // three spans end now
      region.stop();              // and a fourth
      logMetadata('k', 'v');
      finalize();
      closeSync(fd);
      console.log(JSON.stringify([readFileSync(${JSON.stringify(mine)}, 'utf8'), log.file !== null]));
    `, { DFTRACER_ENABLE: '1', DFTRACER_LOG_LEVEL: 'INFO', DFTRACER_DATA_DIR: join(dir, 'data') });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['mine\n', true]);
    expect(r.stderr).toBe('dftracer: INFO: 4 event(s) arrived after finalize and were dropped\n');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    expect(t.complete.at(-1)!.name).toBe('end');
    expect(t.complete.some((e) => e.name === 'slow' || e.name === 'region')).toBe(false);
    expect(t.meta.some((m) => m.name === 'CM')).toBe(false);
  });

  it('lets worker threads write into the process file with their own tid and unique ids', () => {
    const dir = tempDir();
    const r = runModule(dir, `
      import { initializeLog, dftFn, finalize } from CORE;
      import { Worker } from 'node:worker_threads';
      import { writeFileSync } from 'node:fs';
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'wt'))} });
      const f = dftFn('c').log(function onMain() { return 1; });
      for (let i = 0; i < 3000; i++) f();
      const src = ${JSON.stringify(join(dir, 'worker.mjs'))};
      writeFileSync(src, "import { initializeLog, dftFn, finalize } from " + JSON.stringify(${JSON.stringify(CORE_DIST)}) + ";" +
        "initializeLog(); const g = dftFn('c').log(function onWorker() { return 2; }); for (let i = 0; i < 5000; i++) g(); finalize();");
      await Promise.all([1, 2].map(() => new Promise((res, rej) => {
        const w = new Worker(src);
        w.on('exit', res); w.on('error', rej);
      })));
      for (let i = 0; i < 3000; i++) f();
      finalize();
    `, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '65536' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const files = traceFiles(dir);
    expect(files).toHaveLength(1);
    const t = readTrace(files[0]!);
    expect(traceProblems(t)).toEqual([]);
    const main = t.complete.filter((e) => e.name === 'onMain');
    const work = t.complete.filter((e) => e.name === 'onWorker');
    expect(main).toHaveLength(6000);
    expect(work).toHaveLength(10000);
    const workerTids = new Set(work.map((e) => e.tid));
    expect(workerTids.size).toBe(2);
    expect(workerTids.has(main[0]!.tid)).toBe(false);
    expect(existsSync(files[0]!)).toBe(true);
  });

  it('with DFTRACER_BIND_SIGNALS=1 flushes on SIGTERM and still dies by the signal', () => {
    const dir = tempDir();
    const r = runModule(dir, `
      import { initializeLog, dftFn } from CORE;
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'sig'))} });
      const f = dftFn('c').log(function beforeSignal() { return 1; });
      for (let i = 0; i < 100; i++) f();
      setTimeout(() => {}, 100000);
      process.kill(process.pid, 'SIGTERM');
    `, { DFTRACER_ENABLE: '1', DFTRACER_BIND_SIGNALS: '1' });
    expect(r.signal).toBe('SIGTERM');
    const t = readTrace(traceFiles(dir)[0]!);
    expect(t.complete.filter((e) => e.name === 'beforeSignal')).toHaveLength(100);
    expect(t.complete.at(-1)!.name).toBe('end');
  });
});
