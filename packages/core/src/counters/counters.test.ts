import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';
import { ConfigError, resolveConfig } from '../config/resolve.js';
import { childEnv } from '../api/children.js';
import { CORE_DIST, cleanEnv, runModule } from '../test-util/node-process.test-util.js';
import { MAX_EVENT_BYTES } from '../format/line-format.js';
import { counterLine } from './counter-line.js';

/** Runs `source` (CORE: the built package) in a fresh node; returns its one trace, checked. */
function traced(source: string, env: Record<string, string> = {}): { trace: Trace; stdout: string; stderr: string } {
  const dir = tempDir();
  const r = runModule(dir, source, { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(dir, 'trace'), ...env });
  expect(r.status, r.stderr).toBe(0);
  const files = traceFiles(dir);
  expect(files).toHaveLength(1);
  const trace = readTrace(files[0]!);
  expect(traceProblems(trace)).toEqual([]);
  return { trace, stdout: r.stdout, stderr: r.stderr };
}

const named = (t: Trace, name: string, cat = 'sys'): TraceEvent[] => t.counters.filter((c) => c.name === name && c.cat === cat);
const withArg = (cs: TraceEvent[], arg: string): TraceEvent[] => cs.filter((c) => arg in c.args);
/** The largest gap between consecutive timestamps within [from, to], the bounds included. */
function largestGap(ts: number[], from: number, to: number): number {
  const inside = [from, ...ts.filter((t) => t >= from && t <= to).sort((a, b) => a - b), to];
  let gap = 0;
  for (let i = 1; i < inside.length; i++) gap = Math.max(gap, inside[i]! - inside[i - 1]!);
  return gap;
}

// A loop that holds the thread for 2 s without yielding; prints its bounds on the tracer's clock.
const BUSY = `
import { initializeLog, finalize, getTime, dftFn } from CORE;
initializeLog();
const step = dftFn('busy').log(function step(x) { return x + Math.sqrt(x + 1); });
const t0 = getTime();
let x = 0;
let i = 0;
let kept = [];
// With CALLS=1 a traced call (and a small allocation, for scavenges) every 64th turn: a trace of
// tens of MB, where a call every turn makes gigabytes on a fast node.
while (getTime() - t0 < 2_000_000) {
  if (process.env.CALLS === '1' && (++i & 63) === 0) {
    kept = [x, kept.length];
    x = step(x);
  } else x = x + Math.sqrt(x + 1);
}
console.log(JSON.stringify({ t0, t1: getTime() }));
finalize();
`;

describe('counters', () => {
  it('a loop that never yields for 2 s still gets process-wide sys samples across those 2 s (writer thread)', () => {
    const { trace, stdout } = traced(BUSY, { DFTRACER_TRACE_COMPRESSION: '1' });
    const { t0, t1 } = JSON.parse(stdout) as { t0: number; t1: number };
    const rss = withArg(named(trace, 'memory'), 'rss').map((c) => c.ts);
    const cpu = named(trace, 'cpu');
    expect(rss.filter((t) => t >= t0 && t <= t1).length).toBeGreaterThanOrEqual(10);
    // every 100 ms by default; a loaded machine may delay a tick, never by a second
    expect(largestGap(rss, t0, t1)).toBeLessThan(600_000);
    // the program's thread is busy: CPU is measured while the loop runs (a shared machine gives it less than a core)
    const during = cpu.filter((c) => c.ts > t0 + 200_000 && c.ts <= t1);
    expect(during.length).toBeGreaterThan(5);
    expect(Math.max(...during.map((c) => c.args.user_pct + c.args.system_pct))).toBeGreaterThan(10);
    for (const c of trace.counters) {
      expect(c.pid).toBe(trace.complete[0]!.pid);
      expect(c.args.hhash).toMatch(/^[0-9a-f]{16}$/);
    }
    // the loop held the event loop: the last sample says so
    const loop = named(trace, 'event_loop');
    expect(loop.at(-1)!.args.delay_max_us).toBeGreaterThan(1_500_000);
  });

  it.skipIf(process.platform !== 'linux')('cpu is a percentage of one core: busy threads pinned to one core read at most 100, and the samples add up to the process\'s own CPU time', () => {
    // Three spinning threads on core 0 (taskset), sampled every 1 ms: over such short windows the
    // kernel's tick-based CPU time read above one core here (and up to 3.7 cores on 2 cores).
    const dir = tempDir();
    const program = `
      import { initializeLog, finalize, getTime } from CORE;
      import { Worker } from 'node:worker_threads';
      import { availableParallelism } from 'node:os';
      initializeLog();
      const spinners = [0, 1, 2].map(() => new Worker('for (;;) {}', { eval: true }));
      await new Promise((r) => setTimeout(r, 100));
      const t0 = getTime(), c0 = process.cpuUsage();
      await new Promise((r) => setTimeout(r, 1500));
      const t1 = getTime(), c1 = process.cpuUsage();
      await Promise.all(spinners.map((w) => w.terminate()));
      finalize();
      console.log(JSON.stringify({ t0, t1, cpuUs: c1.user - c0.user + c1.system - c0.system, cores: availableParallelism() }));
    `;
    const file = join(dir, 'cpu.mjs');
    writeFileSync(file, program.replaceAll('CORE', JSON.stringify(CORE_DIST)));
    const r = spawnSync('taskset', ['-c', '0', process.execPath, file], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(dir, 'trace'), DFTRACER_COUNTERS_INTERVAL_MS: '1' }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const { t0, t1, cpuUs, cores } = JSON.parse(r.stdout) as { t0: number; t1: number; cpuUs: number; cores: number };
    expect(cores).toBe(1);
    const trace = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(trace)).toEqual([]);
    const cpu = named(trace, 'cpu').sort((a, b) => a.ts - b.ts);
    // One writer thread among five on a core: its timer fires late, but some windows of ≥ 50 ms are read.
    expect(cpu.length).toBeGreaterThanOrEqual(5);
    // (each series is written to 3 decimals)
    for (const c of cpu) expect(c.args.user_pct + c.args.system_pct).toBeLessThanOrEqual(100.002);
    // Each sample covers the time since the one before: over the busy stretch their sum is the CPU
    // time the program measured itself. The windows cut by the stretch's ends, and any part of it
    // no window covers, can be off by up to their length (at most one core: taskset), so the
    // bound is that, measured, plus 5 %: a loaded machine stretches the windows, not the error.
    let sum = 0;
    let inside = 0;
    let edges = 0;
    for (let i = 1; i < cpu.length; i++) {
      const from = Math.max(cpu[i - 1]!.ts, t0);
      const to = Math.min(cpu[i]!.ts, t1);
      if (to <= from) continue;
      sum += ((cpu[i]!.args.user_pct + cpu[i]!.args.system_pct) / 100) * (to - from);
      inside += to - from;
      if (cpu[i - 1]!.ts < t0 || cpu[i]!.ts > t1) edges += to - from;
    }
    const uncovered = t1 - t0 - inside;
    expect(edges + uncovered, 'the samples leave most of the stretch to whole windows').toBeLessThan(0.5 * (t1 - t0));
    expect(Math.abs(sum - cpuUs)).toBeLessThan(edges + uncovered + 0.05 * (t1 - t0));
  });

  it('samples the program thread (heap, event loop, GC) where it passes through the tracer, at most once per interval', () => {
    const { trace, stdout } = traced(BUSY, { CALLS: '1', DFTRACER_COUNTERS_INTERVAL_MS: '50' });
    const { t0, t1 } = JSON.parse(stdout) as { t0: number; t1: number };
    const heap = withArg(named(trace, 'memory'), 'heap_used').map((c) => c.ts);
    expect(heap.filter((t) => t >= t0 && t <= t1).length).toBeGreaterThanOrEqual(15);
    expect(largestGap(heap, t0, t1)).toBeLessThan(400_000);
    for (let i = 1; i < heap.length - 1; i++) expect(heap[i]! - heap[i - 1]!).toBeGreaterThanOrEqual(50_000);
    const gc = named(trace, 'gc');
    expect(gc.length).toBe(heap.length);
    expect(gc.reduce((a, c) => a + c.args.count, 0)).toBeGreaterThan(0); // the loop allocates: scavenges inside it
    for (const e of named(trace, 'event_loop')) expect(e.args.utilization).toBeGreaterThanOrEqual(0);
  });

  it('counts every GC once, whether the loop yields (observer) or is held (profiler), against an independent GCProfiler', () => {
    const { trace, stdout } = traced(
      `
      import { initializeLog, finalize, dftFn } from CORE;
      import v8 from 'node:v8';
      const reference = new v8.GCProfiler();
      reference.start();
      initializeLog();
      const step = dftFn('alloc').log(function alloc(n) { let keep; for (let i = 0; i < n; i++) keep = { i, a: [i, i] }; return keep; });
      const hold = (ms) => { const end = performance.now() + ms; while (performance.now() < end) step(2000); };
      const turn = () => new Promise((r) => setTimeout(r, 5));
      for (let round = 0; round < 3; round++) {
        hold(300); // held: longer than the 50 ms interval
        for (let k = 0; k < 20; k++) { step(20000); await turn(); } // yielding
      }
      await turn();
      await new Promise((r) => setImmediate(r)); // the observer delivers what is left
      const gcs = reference.stop().statistics.length;
      finalize();
      console.log(JSON.stringify({ gcs }));
      `,
      { DFTRACER_COUNTERS_INTERVAL_MS: '50', DFTRACER_TRACE_COMPRESSION: '0' },
    );
    const { gcs } = JSON.parse(stdout) as { gcs: number };
    const counted = named(trace, 'gc').reduce((a, c) => a + c.args.count, 0);
    expect(gcs).toBeGreaterThan(20);
    // finalize's own GCs come after the reference stopped; a GC between the profiler's stop and start may be missed
    expect(counted).toBeGreaterThanOrEqual(gcs * 0.9);
    expect(counted).toBeLessThanOrEqual(gcs + 3);
  });

  it('counts traced I/O in the io counter from the fs tracer, and writes plugin samplers and counter() records', () => {
    const { trace } = traced(
      `
      import { initializeLog, finalize, counter, addCounterSampler } from CORE;
      import { readFileSync, writeFileSync } from 'node:fs';
      initializeLog({ dataDir: process.env.DATA });
      let n = 0;
      addCounterSampler(function queue(emit) { emit('queue', 'app', { depth: ++n }); });
      writeFileSync(process.env.DATA + '/a.bin', Buffer.alloc(300_000, 1));
      readFileSync(process.env.DATA + '/a.bin');
      counter('loss', 'train', { value: 0.25, skipped: 'text' });
      finalize();
      `,
      { DATA: dataDir() },
    );
    const io = named(trace, 'io');
    expect(io.reduce((a, c) => a + c.args.write_bytes, 0)).toBe(300_000);
    expect(io.reduce((a, c) => a + c.args.read_bytes, 0)).toBe(300_000);
    expect(io.reduce((a, c) => a + c.args.read_ops, 0)).toBeGreaterThanOrEqual(1);
    expect(named(trace, 'queue', 'app').length).toBeGreaterThanOrEqual(1);
    expect(named(trace, 'loss', 'train').map((c) => c.args)).toEqual([{ hhash: expect.any(String), value: 0.25 }]);
  });

  it.each([
    ['plain', { DFTRACER_TRACE_COMPRESSION: '0' }],
    ['gzip, zlib', { DFTRACER_TRACE_COMPRESSION: '1', DFTRACER_GZIP_ENCODER: 'zlib' }],
    ['no writer thread', { DFTRACER_WRITER_THREAD: '0' }],
  ])('writes counter records through every encoder (%s), without metadata too', (_, env) => {
    for (const inc of ['1', '0']) {
      const { trace } = traced(BUSY.replace('2_000_000', '300_000'), { ...env, CALLS: '1', DFTRACER_INC_METADATA: inc });
      // cpu needs an interval on the writer thread, which a 0.3 s run on a loaded machine may not see
      for (const name of ['memory', 'event_loop', 'gc', 'io']) expect(named(trace, name).length, name).toBeGreaterThan(0);
    }
  });

  it('DFTRACER_COUNTERS_INTERVAL_MS=0 writes none', () => {
    const { trace } = traced(BUSY.replace('2_000_000', '300_000'), { CALLS: '1', DFTRACER_COUNTERS_INTERVAL_MS: '0' });
    expect(trace.counters).toEqual([]);
    expect(trace.program.length).toBeGreaterThan(100);
  });

  it('an invalid interval is an error naming the variable (or the option); children inherit the interval', () => {
    for (const bad of ['-1', '1.5', 'fast', '3600001']) {
      expect(() => resolveConfig({}, { DFTRACER_COUNTERS_INTERVAL_MS: bad })).toThrow(ConfigError);
      expect(() => resolveConfig({}, { DFTRACER_COUNTERS_INTERVAL_MS: bad })).toThrow(/DFTRACER_COUNTERS_INTERVAL_MS/);
    }
    expect(() => resolveConfig({ countersIntervalMs: -5 })).toThrow(/option countersIntervalMs/);
    expect(resolveConfig({}, {}).countersIntervalMs).toBe(100);
    expect(resolveConfig({}, { DFTRACER_COUNTERS_INTERVAL_MS: '0' }).countersIntervalMs).toBe(0);
    expect(childEnv(resolveConfig({ countersIntervalMs: 250 }, {})).DFTRACER_COUNTERS_INTERVAL_MS).toBe('250');
    // in a program: tracing is off and stderr names the variable
    const dir = tempDir();
    const r = runModule(dir, `import { initializeLog } from CORE; console.log(initializeLog().enabled);`, { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(dir, 't'), DFTRACER_COUNTERS_INTERVAL_MS: 'often' });
    expect(r.stdout.trim()).toBe('false');
    expect(r.stderr).toMatch(/DFTRACER_COUNTERS_INTERVAL_MS="often" is not valid/);
  });

  it('formats a counter line in DFTracer field order, numbers as JavaScript prints them', () => {
    expect(counterLine(7, 'memory', 'sys', 10, 11, 1_700_000_000_000_123, 'abcdef0123456789', { rss: 5, pct: 12.34567, negz: -0 })).toBe(
      '{"id":7,"name":"memory","cat":"sys","pid":10,"tid":11,"ts":1700000000000123,"ph":"C","args":{"hhash":"abcdef0123456789","rss":5,"pct":12.34567,"negz":0}}\n',
    );
    expect(counterLine(7, 'memory', 'sys', 10, 11, 1, 'h', {})).toBeNull();
  });

  it('writes NaN and ±Infinity as null with the non_finite marker, told once per kind of problem', () => {
    const told: string[] = [];
    const warn = (p: string, m: string) => told.push(`${p}: ${m}`);
    const line = counterLine(7, 'train', 'app', 1, 1, 1, 'h', { loss: NaN, lr: Infinity, low: -Infinity, ok: 2 }, warn)!;
    expect(JSON.parse(line).args).toEqual({ hhash: 'h', loss: null, lr: null, low: null, ok: 2, non_finite: { loss: 'NaN', lr: 'Infinity', low: '-Infinity' } });
    expect(told.every((t) => t.startsWith('non-finite: counter train: values.'))).toBe(true);
    // a sample of only non-finite values is still a record: a diverging loss stays visible
    expect(JSON.parse(counterLine(8, 'train', 'app', 1, 1, 1, 'h', { loss: NaN })!).args).toEqual({ hhash: 'h', loss: null, non_finite: { loss: 'NaN' } });
  });

  it('contains a throwing getter or Proxy, leaves out non-numbers, renames reserved keys, and cuts names', () => {
    const told: string[] = [];
    const warn = (p: string) => told.push(p);
    const values = {
      a: 1,
      get b(): number {
        throw new Error('no b');
      },
      c: 'text' as unknown as number,
      hhash: 3,
      non_finite: 4,
      ['k'.repeat(2000)]: 5,
    };
    const args = JSON.parse(counterLine(7, 'n'.repeat(3000), 'app', 1, 1, 1, 'h', values, warn)!).args;
    expect(args.a).toBe(1);
    expect('b' in args || 'c' in args).toBe(false);
    expect([args.hhash, args.user_hhash, args.user_non_finite]).toEqual(['h', 3, 4]);
    expect(Object.keys(args).find((k) => k.startsWith('kkk'))).toBe(`${'k'.repeat(1024)}…[truncated 976 chars]`);
    expect(told).toEqual(['getter', 'not-a-number']);
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
    expect(counterLine(7, 'p', 'app', 1, 1, 1, 'h', proxy, warn)).toBeNull();
    expect(told.at(-1)).toBe('getter');
  });

  it('keeps a counter record within the 16 KiB line cap: the series past it are left out and told', () => {
    const told: string[] = [];
    const values: Record<string, number> = {};
    for (let i = 0; i < 2000; i++) values[`series_${i}`] = i === 5 ? NaN : i + 0.5;
    const line = counterLine(7, 'wide', 'app', 1, 1, 1, 'h', values, (p, m) => told.push(`${p}: ${m}`))!;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    const args = JSON.parse(line).args;
    const kept = Object.keys(args).filter((k) => k.startsWith('series_'));
    // written in order: every series before the cut, none after it
    expect(kept).toEqual(Object.keys(values).slice(0, kept.length));
    expect(kept.length).toBeGreaterThan(500);
    expect(args.non_finite).toEqual({ series_5: 'NaN' });
    expect(told).toContain(`too-long: counter wide: ${2000 - kept.length} of its 2000 series left out, the record would exceed the 16 KiB line cap`);
    // non-ASCII keys: counted in UTF-8 bytes
    const wide: Record<string, number> = {};
    for (let i = 0; i < 400; i++) wide[`€${i}`.repeat(8)] = i;
    expect(Buffer.byteLength(counterLine(7, 'wide', 'app', 1, 1, 1, 'h', wide)!)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
  });

  it.each([
    ['plain, writer thread', { DFTRACER_TRACE_COMPRESSION: '0' }],
    ['gzip, zlib', { DFTRACER_TRACE_COMPRESSION: '1', DFTRACER_GZIP_ENCODER: 'zlib' }],
    ['no writer thread', { DFTRACER_WRITER_THREAD: '0' }],
  ])('counter() round trip through a trace file (%s): values read back exactly, NaN recorded and warned about once', (_, env) => {
    const { trace, stdout, stderr } = traced(
      `
      import { initializeLog, finalize, counter } from CORE;
      initializeLog();
      counter('train', 'app', { lr: 1e-5, acc: 0.98765, big: 1e21, loss: 0.0004 });
      counter('train', 'app', { lr: 1e-5, loss: NaN });
      counter('train', 'app', { lr: -Infinity, loss: NaN });
      counter('train', 'app', { get loss() { throw new Error('diverged'); }, lr: 2e-5 });
      console.log('went on');
      finalize();
      `,
      env,
    );
    expect(named(trace, 'train', 'app').map((c) => c.args)).toEqual([
      { hhash: expect.any(String), lr: 1e-5, acc: 0.98765, big: 1e21, loss: 0.0004 },
      { hhash: expect.any(String), lr: 1e-5, loss: null, non_finite: { loss: 'NaN' } },
      { hhash: expect.any(String), lr: null, loss: null, non_finite: { lr: '-Infinity', loss: 'NaN' } },
      { hhash: expect.any(String), lr: 2e-5 },
    ]);
    expect(stdout.trim()).toBe('went on');
    expect(stderr.match(/WARN.*non_finite/g)).toHaveLength(1);
    expect(stderr).toMatch(/WARN.*counter train: values\.loss is NaN; written as null/);
    expect(stderr.match(/WARN.*reading values\.loss threw \(diverged\)/g)).toHaveLength(1);
  });
});

function dataDir(): string {
  const d = join(tempDir(), 'data');
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, '.keep'), '');
  return d;
}
