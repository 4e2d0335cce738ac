import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import { runModule } from '../test-util/node-process.test-util.js';

/**
 * A program that traces in rounds (initializeLog … finalize, again and again) while V8 optimizes
 * fresh code: one writer thread serves every round and is never terminated (tearing a worker down
 * while its concurrent compile jobs run aborts Node 20: writer-thread.ts). Each round's file is
 * complete, and every round hands its batches to that thread.
 */
const ROUNDS = 8;
const PROGRAM = `
import { initializeLog, finalize, getTracer, dftFn } from CORE;
let workers = 0;
process.on('worker', () => workers++);
let sink = 0;
const jit = (seed) => {
  for (let k = 0; k < 10; k++) {
    const f = new Function('a', 'b', 'let s = ' + (seed + k) + '; for (let i = 0; i < a; i++) s = (s * 31 + i * b) | 0; return s;');
    for (let i = 0; i < 2000; i++) sink ^= f(40, i);
  }
};
const handed = [];
for (let r = 0; r < ${ROUNDS}; r++) {
  initializeLog({ logFile: process.env.LOG_DIR + '/round' + r });
  const ev = dftFn('round').log(function ev(i) { return i; });
  for (let i = 0; i < 20000; i++) sink ^= ev(i);
  jit(r * 100);
  handed.push(getTracer().batches.handed);
  finalize();
  jit(r * 100 + 50);
}
await new Promise((r) => setImmediate(r)); // 'worker' is emitted on the next tick
console.log(JSON.stringify({ workers, handed, sink: typeof sink }));
`;

describe('tracing in rounds in one process', () => {
  it('uses one writer thread for every round, exits cleanly and writes every round complete', () => {
    for (let run = 0; run < 3; run++) {
      const dir = tempDir('dft-rounds-');
      const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '32768', LOG_DIR: dir });
      expect(r.stderr).toBe('');
      expect(r.signal).toBeNull();
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout) as { workers: number; handed: number[] };
      expect(out.workers).toBe(1);
      expect(out.handed).toHaveLength(ROUNDS);
      for (const h of out.handed) expect(h).toBeGreaterThan(0);

      const files = traceFiles(dir);
      expect(files).toHaveLength(ROUNDS);
      for (const f of files) {
        const t = readTrace(f);
        expect(traceProblems(t)).toEqual([]);
        expect(t.lines.at(-1)).toBe(']');
        expect(t.complete.filter((e) => e.name === 'ev')).toHaveLength(20000);
        const end = t.complete.at(-1)!;
        expect(end.name).toBe('end');
        expect(end.args!.num_events).toBe(t.events.length - 1);
      }
    }
  });

  it('starts another writer thread for the next round when the shared one died', () => {
    const dir = tempDir('dft-rounds-dead-');
    const program = `
import { initializeLog, finalize, getTracer, dftFn } from CORE;
const workers = [];
process.on('worker', (w) => workers.push(w));
const ev = dftFn('round').log(function ev(i) { return i; });
initializeLog({ logFile: process.env.LOG_DIR + '/round0' });
for (let i = 0; i < 5000; i++) ev(i);
await new Promise((r) => setImmediate(r));
await workers[0].terminate(); // the writer dies mid-round
for (let i = 0; i < 5000; i++) ev(i);
finalize();
initializeLog({ logFile: process.env.LOG_DIR + '/round1' });
for (let i = 0; i < 5000; i++) ev(i);
const handed = getTracer().batches.handed;
finalize();
await new Promise((r) => setImmediate(r));
console.log(JSON.stringify({ workers: workers.length, handed }));
`;
    const r = runModule(dir, program, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '32768', LOG_DIR: dir });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { workers: number; handed: number };
    expect(out.workers).toBe(2);
    expect(out.handed).toBeGreaterThan(0);
    const [round0, round1] = traceFiles(dir).sort().map(readTrace);
    // Round 0: what the dead writer still held is lost (and counted); the file is closed all the same.
    expect(traceProblems(round0!)).toEqual([]);
    expect(round0!.complete.at(-1)!.name).toBe('end');
    expect(round0!.lines.at(-1)).toBe(']');
    expect(round0!.complete.filter((e) => e.name === 'ev').length).toBeGreaterThanOrEqual(5000);
    expect(traceProblems(round1!)).toEqual([]);
    expect(round1!.complete.filter((e) => e.name === 'ev')).toHaveLength(5000);
    expect(round1!.lines.at(-1)).toBe(']');
  });
});
