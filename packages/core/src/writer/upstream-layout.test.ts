import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems, type Trace } from '@dftracer/testing';
import { runModule } from '../test-util/node-process.test-util.js';

// Real processes writing real files, read back as DFTracer's own readers would: every record has
// an id of the file's one sequence, `end.num_events` counts every record before it, `]` closes
// the array, `[` opens it whatever the buffer size, and bad plugin times become integers.

const PROGRAM = `
  import { initializeLog, getTracer, dftFn, logMetadata, finalize } from CORE;
  initializeLog({ logFile: process.env.LOG_FILE, dataDir: process.env.LOG_FILE });
  const t = getTracer();
  const step = dftFn('compute', 'step');
  // dur 0: a fast node can end the step within the µs the leaf starts in, and a 1 µs leaf would poke out
  for (let i = 0; i < 50; i++) step.log(() => t.emit('leaf', 'unit', t.now(), 0, { i }))();
  logMetadata('epoch', '1');
  t.hashFile('/data/a.bin');
  if (process.env.BAD_TIMES) {
    const now = t.now();
    t.emit('inf', 'unit', now, Infinity);
    t.emit('nan', 'unit', NaN, 5);
    t.emit('frac', 'unit', now + 0.75, 2.9);
    t.emit('neg', 'unit', now, -3);
    t.emit('negts', 'unit', -10, 1);
    const s = t.shape('shaped', 'unit', ['k']);
    t.emitShaped(s, now, -Infinity, 1);
    const a = t.enter({ start: now + 0.5 });
    t.exit(a, 'early', 'unit', undefined, now - 100);
    const b = t.enter();
    t.exit(b, 'fracEnd', 'unit', undefined, b.start + 7.4); // (µs since the epoch hold quarters only: 7.5 here)
  }
  finalize();
`;

function run(env: Record<string, string>): { trace: Trace; text: string; stderr: string } {
  const dir = tempDir();
  const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', LOG_FILE: `${dir}/t`, ...env });
  expect(r.status, r.stderr).toBe(0);
  const file = traceFiles(dir)[0]!;
  const raw = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return { trace: readTrace(file), text, stderr: r.stderr };
}

describe('records numbered and counted as upstream', () => {
  for (const compression of ['1', '0']) {
    it(`ids on every record, unique; num_events counts metadata; "]" last (compression ${compression})`, () => {
      const { trace, text } = run({ DFTRACER_TRACE_COMPRESSION: compression });
      expect(traceProblems(trace)).toEqual([]);
      const records = trace.events;
      for (const e of records) expect(Number.isInteger(e.id), JSON.stringify(e)).toBe(true);
      expect(new Set(records.map((e) => e.id)).size).toBe(records.length);
      // upstream's preamble, in order, each with an id
      expect(trace.lines.slice(1, 7).map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(['HH', 'process_name', 'thread_name', 'FH', 'SH', 'SH']);
      const meta = trace.meta.map((m) => m.name);
      expect(meta).toContain('CM');
      const end = records[records.length - 1]!;
      expect(end.name).toBe('end');
      expect(end.args!.num_events).toBe(records.length - 1);
      expect(end.args!.num_events).toBeGreaterThan(trace.complete.length - 1);
      expect(text.endsWith('\n]\n')).toBe(true);
      // thread_name keeps the readable name (upstream swaps name and value)
      expect(trace.meta.find((m) => m.name === 'thread_name')!.args).toMatchObject({ name: 'main' });
    });

    it(`"[" first with a 16-byte DFTRACER_WRITE_BUFFER_SIZE (compression ${compression})`, () => {
      const { trace, text } = run({ DFTRACER_TRACE_COMPRESSION: compression, DFTRACER_WRITE_BUFFER_SIZE: '16' });
      expect(text.startsWith('[\n{"id":')).toBe(true);
      expect(traceProblems(trace)).toEqual([]);
      expect(trace.complete.filter((e) => e.name === 'leaf')).toHaveLength(50);
    });
  }

  it('a 10-byte buffer (upstream’s old default) too', () => {
    const { text } = run({ DFTRACER_TRACE_COMPRESSION: '0', DFTRACER_WRITE_BUFFER_SIZE: '10' });
    expect(text.split('\n')[0]).toBe('[');
    expect(text.endsWith('\n]\n')).toBe(true);
  });
});

describe('plugin times are checked at the boundary', () => {
  for (const compression of ['1', '0']) {
    it(`non-finite, negative and fractional times are written as integers, never dropped (compression ${compression})`, () => {
      const { trace, text, stderr } = run({ DFTRACER_TRACE_COMPRESSION: compression, BAD_TIMES: '1', DFTRACER_LOG_LEVEL: 'DEBUG' });
      expect(text).not.toMatch(/Infinity|NaN/);
      expect(traceProblems(trace)).toEqual([]);
      const by = (n: string) => trace.complete.find((e) => e.name === n)!;
      for (const n of ['inf', 'nan', 'frac', 'neg', 'negts', 'shaped', 'early', 'fracEnd']) {
        const e = by(n);
        expect(e, n).toBeDefined();
        expect(Number.isInteger(e.ts) && e.ts! >= 0, `${n} ts ${e.ts}`).toBe(true);
        expect(Number.isInteger(e.dur) && e.dur! >= 0, `${n} dur ${e.dur}`).toBe(true);
      }
      const start = trace.complete.find((e) => e.name === 'start')!.ts!;
      expect(by('inf').dur).toBe(0);
      expect(by('nan').ts).toBeGreaterThanOrEqual(start); // now
      expect(by('nan').dur).toBe(5);
      expect(by('frac').dur).toBe(2);
      expect(by('frac').ts).toBe(by('inf').ts); // floored
      expect(by('neg').dur).toBe(0);
      expect(by('negts').ts).toBe(0);
      expect(by('shaped').dur).toBe(0);
      expect(by('early').dur).toBe(0);
      expect(by('fracEnd').dur).toBe(7);
      // reported once, at DEBUG
      expect(stderr.match(/dftracer: DEBUG: .*not a non-negative integer/g)).toHaveLength(1);
    });
  }

  it('says nothing about bad times below DEBUG', () => {
    const { stderr } = run({ DFTRACER_TRACE_COMPRESSION: '0', BAD_TIMES: '1' });
    expect(stderr).toBe('');
  });
});
