import { readTrace, tempDir, traceProblems } from '@dftracer/testing';
import { describe, expect, it } from 'vitest';
import { runModule } from '../test-util/node-process.test-util.js';

/**
 * Names made per event (`ProfilerStep#N`) through exitTransient: the trace is the one `exit`
 * writes, while the session's name table stays bounded (a ring of slots, redefined as it turns).
 * Run against the built package, so that the writer thread is the real one.
 */
const N = 3000;
const PROGRAM = `
import { initializeLog, finalize, getTracer } from CORE;
const transient = process.env.TRANSIENT === '1';
const file = initializeLog({ enable: true, logFile: process.env.LOG_DIR + '/t', writeBufferSize: 64 * 1024 }).file;
const t = getTracer();
for (let i = 0; i < ${N}; i++) {
  const span = t.enter({ start: 1000000 + i * 10 });
  t.emit('kernel', 'PP', 1000001 + i * 10, 1, { i });
  // Some names come back (a cycle written twice), most are new.
  const step = i % 7 === 0 ? i % 50 : i;
  if (transient) t.exitTransient(span, 'ProfilerStep#' + step, 'profiler', { step }, 1000005 + i * 10);
  else t.exit(span, 'ProfilerStep#' + step, 'profiler', { step }, 1000005 + i * 10);
}
const kinds = t.interner.kindFrag.length;
finalize();
console.log(JSON.stringify({ file, kinds }));
`;

function session(compression: boolean, writerThread: boolean, transient: boolean): { lines: string[]; kinds: number } {
  const dir = tempDir('dft-transient-');
  const r = runModule(dir, PROGRAM, { LOG_DIR: dir, TRANSIENT: transient ? '1' : '0', DFTRACER_ENABLE: '1', DFTRACER_TRACE_COMPRESSION: compression ? '1' : '0', DFTRACER_WRITER_THREAD: writerThread ? '1' : '0' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const { file, kinds } = JSON.parse(r.stdout) as { file: string; kinds: number };
  expect(file.endsWith('.gz')).toBe(compression);
  const trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  // The test's own events (the tracer's start/end and writer events differ per session).
  const lines = trace.complete.filter((e) => e.cat === 'PP' || e.cat === 'profiler').map((e) => JSON.stringify({ ...e, pid: 0, tid: 0 }));
  return { lines, kinds };
}

describe('exitTransient', () => {
  for (const [compression, writerThread] of [[false, true], [true, true], [true, false], [false, false]] as const) {
    it(`writes what exit writes, with a bounded name table (compression ${compression}, writer thread ${writerThread})`, () => {
      const plain = session(compression, writerThread, false);
      const ring = session(compression, writerThread, true);
      expect(ring.lines).toHaveLength(2 * N);
      expect(ring.lines).toEqual(plain.lines);
      expect(plain.kinds).toBeGreaterThan(N * 0.8);
      expect(ring.kinds).toBeLessThan(300);
    });
  }
});
