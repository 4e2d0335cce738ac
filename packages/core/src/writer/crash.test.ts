import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maxInFlight } from './writer-thread.js';
import { readCrashedTrace, readTrace, tempDir, traceFiles, traceProblems, type TraceEvent } from '@dftracer/testing';
import { runModule, start, writeModule } from '../test-util/node-process.test-util.js';

/**
 * A process killed with SIGKILL runs no handler: what it leaves is whatever reached the file.
 * Each flush is one complete gzip member (or whole lines) appended in one locked write, so a
 * reader that walks members finds valid lines only, and at worst one member cut short at the end.
 */

// Traces `ev(step)` forever on the main thread (and THREADS worker threads), printing progress.
const HEAVY = `
import { initializeLog, dftFn } from CORE;
import { Worker, isMainThread, workerData } from 'node:worker_threads';
if (isMainThread) initializeLog({ logFile: process.env.LOG_FILE });
else initializeLog();
const ev = dftFn('crash').log(function ev(step) { return step + 1; });
if (isMainThread) {
  const threads = Number(process.env.THREADS ?? 0);
  let ready = 0;
  await new Promise((res) => {
    if (threads === 0) res();
    for (let t = 0; t < threads; t++) new Worker(new URL(import.meta.url), { workerData: t }).on('message', () => { if (++ready === threads) res(); });
  });
  for (let i = 0; ; i++) {
    ev(i);
    if (i % 4096 === 0) console.log(i);
  }
} else {
  const { parentPort } = await import('node:worker_threads');
  parentPort.postMessage('ready');
  for (let i = 0; ; i++) ev(i);
}
`;

/** The `ev` events of each thread must be steps 0..n-1, each once: nothing before the last write is missing. */
function contiguousPerThread(events: TraceEvent[]): Map<number, number> {
  const byTid = new Map<number, number[]>();
  for (const e of events) {
    if (e.name !== 'ev') continue;
    const steps = byTid.get(e.tid) ?? [];
    steps.push(e.args!.step as number);
    byTid.set(e.tid, steps);
  }
  const counts = new Map<number, number>();
  for (const [tid, steps] of byTid) {
    steps.sort((a, b) => a - b);
    const gap = steps.findIndex((s, i) => s !== i);
    expect(gap, `thread ${tid}: step ${steps[gap]} at position ${gap}`).toBe(-1);
    counts.set(tid, steps.length);
  }
  return counts;
}

async function killDuringTracing(compressed: boolean, threads: number, killAfter: number) {
  const dir = tempDir('dft-crash-');
  const file = writeModule(dir, HEAVY);
  const run = start(file, {
    DFTRACER_ENABLE: '1',
    DFTRACER_TRACE_COMPRESSION: compressed ? '1' : '0',
    DFTRACER_WRITE_BUFFER_SIZE: String(64 * 1024),
    LOG_FILE: join(dir, 'crash'),
    THREADS: String(threads),
  });
  const progress = Number(await run.line((l) => Number(l) >= killAfter));
  run.child.kill('SIGKILL');
  const done = await run.exited;
  expect(done.signal).toBe('SIGKILL');
  const files = traceFiles(dir);
  expect(files).toHaveLength(1);
  // Throws on any corrupt member or invalid complete line.
  const t = readCrashedTrace(files[0]!);
  expect(t.lines[0]).toBe('[');
  expect(t.meta.slice(0, 2).map((m) => m.name)).toEqual(['HH', 'process_name']);
  expect(t.complete[0]!.name).toBe('start');
  const ids = t.complete.map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
  const counts = contiguousPerThread(t.complete);
  expect(counts.size).toBe(threads + 1);
  const mainTid = t.complete[0]!.tid;
  const onMain = counts.get(mainTid) ?? 0;
  expect(onMain).toBeGreaterThan(0);
  return { onMain, progress, tailBytes: t.tailBytes, members: t.memberCount };
}

describe('kill -9 during heavy tracing', () => {
  it('compressed: every complete member decompresses to whole valid lines, each thread keeps a gap-free prefix', async () => {
    for (const [threads, killAfter] of [
      [0, 30_000],
      [0, 90_000],
      [2, 40_000],
    ] as const) {
      const r = await killDuringTracing(true, threads, killAfter);
      expect(r.members).toBeGreaterThan(1);
    }
  });

  it('uncompressed: every complete line is valid, each thread keeps a gap-free prefix', async () => {
    for (const [threads, killAfter] of [
      [0, 30_000],
      [1, 60_000],
    ] as const) await killDuringTracing(false, threads, killAfter);
  });

  it('loses at most what was still buffered or in flight to the writer thread when killed at a known point', () => {
    // The program records exactly R events, then kills itself: nothing runs after the last record.
    const R = 200_000;
    const BUF = 64 * 1024;
    const dir = tempDir('dft-crash-');
    const r = runModule(dir, `
      import { initializeLog, dftFn } from CORE;
      initializeLog({ logFile: process.env.LOG_FILE });
      const ev = dftFn('crash').log(function ev(step) { return step + 1; });
      for (let i = 0; i < ${R}; i++) ev(i);
      process.kill(process.pid, 'SIGKILL');
    `, { DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: String(BUF), LOG_FILE: join(dir, 'known') });
    expect(r.signal).toBe('SIGKILL');
    const t = readCrashedTrace(traceFiles(dir)[0]!);
    const onDisk = contiguousPerThread(t.complete).get(t.complete[0]!.tid) ?? 0;
    // A buffer holds BUF/192 events; the writer thread accepts up to maxInFlight(BUF) buffers before
    // the program waits, so a crash loses at most the buffer being filled plus those.
    const capacity = Math.floor(BUF / 192);
    console.log(`[crash] killed after ${R} events: ${onDisk} on disk, ${R - onDisk} lost (${((R - onDisk) / capacity).toFixed(1)} buffers of ${capacity})`);
    expect(R - onDisk).toBeLessThanOrEqual((maxInFlight(BUF) + 1) * capacity);
  });

  it('a file cut at any byte (a crash mid-write) reads as a clean prefix of the whole trace', () => {
    for (const compressed of [true, false]) {
      const dir = tempDir('dft-cut-');
      const r = runModule(dir, `
        import { initializeLog, dftFn, finalize } from CORE;
        initializeLog({ logFile: process.env.LOG_FILE });
        const ev = dftFn('crash').log(function ev(step) { return step; });
        for (let i = 0; i < 3000; i++) ev(i);
        finalize();
      `, { DFTRACER_ENABLE: '1', DFTRACER_TRACE_COMPRESSION: compressed ? '1' : '0', DFTRACER_WRITE_BUFFER_SIZE: '65536', LOG_FILE: join(dir, 'cut') });
      expect(r.status).toBe(0);
      const whole = traceFiles(dir)[0]!;
      const full = readTrace(whole);
      expect(traceProblems(full)).toEqual([]);
      const raw = readFileSync(whole);
      const cutFile = join(dir, compressed ? 'cut.pfw.gz' : 'cut.pfw');
      let rnd = 12345;
      const cuts = new Set<number>([0, 1, 2, 10, raw.length - 1, raw.length - 8, raw.length - 9]);
      while (cuts.size < 150) cuts.add((rnd = (rnd * 1103515245 + 12345) % 2 ** 31) % raw.length);
      for (const at of cuts) {
        writeFileSync(cutFile, raw.subarray(0, at));
        const t = readCrashedTrace(cutFile);
        // The lines read are exactly the first lines of the whole trace.
        expect(t.lines.length === 0 || t.lines[0] === '[').toBe(true);
        const differs = t.lines.findIndex((l, i) => l !== full.lines[i]);
        expect(differs, `cut at ${at}: line ${differs}`).toBe(-1);
        if (at === raw.length) expect(t.tailBytes).toBe(0);
      }
    }
  });
});
