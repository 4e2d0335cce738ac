import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems, type TraceEvent } from '@dftracer/testing';
import { runModule } from '../test-util/node-process.test-util.js';

// The same program with and without DFTRACER_ENABLE_AGGREGATION: real fs I/O (sync, callback and
// promise reads and writes of real files), kernel-like events with the times the program chose
// (dynamo `function.*` under a `dynamo.forward` call that does not fold, PP kernels), and a
// dftFn event that never folds.
const PROGRAM = `
import { initializeLog, finalize, getTracer, dftFn } from CORE;
import { mkdirSync, writeFileSync, readFileSync, promises } from 'node:fs';
const data = process.env.DATA;
mkdirSync(data, { recursive: true });
initializeLog({ logFile: process.env.LOG_FILE, dataDir: data, countersIntervalMs: 0 });
for (let i = 0; i < 40; i++) writeFileSync(data + '/f' + (i % 8), Buffer.alloc(1000 + i, 1));
for (let i = 0; i < 40; i++) readFileSync(data + '/f' + (i % 8));
await Promise.all(Array.from({ length: 16 }, (_, i) => promises.readFile(data + '/f' + (i % 8))));
const t = getTracer();
const base = Math.floor(t.now() / 1e6) * 1e6 - 10e6;
const mm = t.shape('function.MatMul', 'dynamo', ['grad_enabled', 'op', 'inputs']);
const call = t.enter({ start: base });
t.within(call, () => {
  for (let i = 0; i < 3000; i++) {
    t.emitShaped(mm, base + i * 997, 5 + (i % 7), i % 2, 'call_function', i % 3 === 0 ? '[[2,3]]' : '[[4,4]]');
    t.emit('function.Relu', 'dynamo', base + i * 997 + 500, 3 + (i % 5), { grad_enabled: 1, op: 'call_function', step: i >> 8 });
    if (i % 3 === 0) t.emit('aten::mm', 'PP', base + i * 997 + 700, 11 + (i % 13), { device: 'cpu', flops: 1000 + i });
  }
});
t.exit(call, 'dynamo.forward', 'dynamo', { op: 'call' }, base + 3000 * 997);
dftFn('app').log(function step() {})();
finalize();
`;

interface Totals {
  count: number;
  dur: number;
  ret: number;
}

/** Per cat/name: calls, µs and bytes, from complete events (1 each) and aggregated records (dft_cnt, *_sum or the plain field). */
function totals(events: TraceEvent[]): Map<string, Totals> {
  const out = new Map<string, Totals>();
  for (const e of events) {
    if (e.cat === 'dftracer' || e.cat === 'sys') continue;
    const a = (e.args ?? {}) as Record<string, number>;
    const folded = e.ph === 'C';
    const k = `${e.cat}/${e.name}`;
    const t = out.get(k) ?? { count: 0, dur: 0, ret: 0 };
    t.count += folded ? a.dft_cnt! : 1;
    t.dur += folded ? (a.dur_sum ?? a.dur!) : e.dur!;
    // bytes moved: the ret of reads and writes (an open's ret is an fd)
    if (e.name === 'read' || e.name === 'write') t.ret += folded ? (a.ret_sum ?? a.ret ?? 0) : (a.ret ?? 0);
    out.set(k, t);
  }
  return out;
}

function run(dir: string, env: Record<string, string>) {
  const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', LOG_FILE: join(dir, 'run'), DATA: join(dir, 'data'), ...env });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const files = traceFiles(dir);
  expect(files).toHaveLength(1);
  const t = readTrace(files[0]!);
  expect(traceProblems(t)).toEqual([]);
  return t;
}

describe('aggregation (DFTRACER_ENABLE_AGGREGATION)', () => {
  it('folds fs I/O and kernels into per-interval records whose calls, µs and bytes add up to the unfolded run', () => {
    const plain = run(tempDir(), {});
    const folded = run(tempDir(), { DFTRACER_ENABLE_AGGREGATION: '1', DFTRACER_TRACE_INTERVAL_MS: '250' });
    const all = (t: ReturnType<typeof readTrace>) => [...t.complete, ...t.counters];
    const a = totals(all(plain));
    const b = totals(all(folded));
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [k, want] of a) {
      const got = b.get(k)!;
      expect(got.count, k).toBe(want.count);
      expect(got.ret, k).toBe(want.ret);
      // the kernels' times are the program's own: equal to the µs; measured ones (I/O, step) differ between runs
      if (k.startsWith('dynamo/') || k.startsWith('PP/')) expect(got.dur, k).toBe(want.dur);
    }
    expect(a.get('dynamo/function.MatMul')!.count).toBe(3000);
    // the bytes the program moved: 40 writes of 1000 + i bytes; 40 + 16 whole reads of the 8 files' last versions (1032 … 1039 bytes)
    expect(a.get('POSIX/write')!.ret).toBe(40 * 1000 + 780);
    expect(a.get('POSIX/read')!.ret).toBe((40 + 16) / 8 * (8 * 1032 + 28));

    const agg = folded.counters.filter((e) => (e.args as Record<string, unknown>).dft_cnt !== undefined);
    // nothing of those kinds is left unfolded; the call they nest in, and dftFn, are events
    expect(folded.complete.filter((e) => e.cat === 'POSIX' || e.cat === 'PP' || e.name.startsWith('function.'))).toEqual([]);
    expect(folded.complete.map((e) => e.name)).toEqual(expect.arrayContaining(['dynamo.forward', 'step']));
    for (const e of agg) {
      const x = e.args as Record<string, number>;
      expect(e.ts! % 250_000, e.name).toBe(0); // at its interval's start
      if (x.dft_cnt! > 1) {
        expect(x.dur_min!).toBeLessThanOrEqual(x.dur_max!);
        expect(x.dur_sum!).toBeGreaterThanOrEqual(x.dur_min! * x.dft_cnt!);
        expect(x.dur_sum!).toBeLessThanOrEqual(x.dur_max! * x.dft_cnt!);
        expect(x.dur).toBeUndefined();
      } else expect(x.dur).toBeTypeOf('number');
    }
    // one record per kernel name, thread and 250 ms interval: 3000 × 997 µs span 12 intervals
    expect(agg.filter((e) => e.name === 'function.MatMul')).toHaveLength(12);
    // a string arg all folded calls share is kept, one that varies is left out
    const mm = agg.filter((e) => e.name === 'function.MatMul').map((e) => e.args as Record<string, unknown>);
    expect(mm.every((x) => x.op === 'call_function' && x.inputs === undefined)).toBe(true);
    // file reads fold per file (fhash written back)
    const reads = agg.filter((e) => e.name === 'read' && e.cat === 'POSIX');
    expect(reads.every((e) => typeof (e.args as Record<string, unknown>).fhash === 'string')).toBe(true);
    // the last interval's records come before end; end.num_events still counts every record
    const end = folded.complete.find((e) => e.name === 'end')!;
    expect(Math.max(...agg.map((e) => e.id!))).toBeLessThan(end.id!);
  });
});
