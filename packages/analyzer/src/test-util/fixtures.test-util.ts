/**
 * Test fixtures: a small trace with known contents (and deliberately broken variants of it). The
 * tests compute expected figures with @dftracer/testing's readTrace (gunzip + JSON.parse per line),
 * a reader that shares no code with the analyzer's.
 */
import { rmSync, truncateSync, statSync } from 'node:fs';
import { tempDir as makeTempDir } from '@dftracer/testing';
import { TraceWriter } from './trace-writer.test-util.js';

/** A fresh directory and a function that removes it. */
export function tempDir(prefix = 'dftracer-test-'): { dir: string; cleanup: () => void } {
  const dir = makeTempDir(prefix);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export type Variant =
  | 'clean'
  | 'bad-json'
  | 'overlap'
  | 'unknown-fhash'
  | 'wrong-num-events'
  | 'field-order'
  | 'missing-parent'
  | 'outside-parent'
  | 'duplicate-id'
  | 'unfinished'
  | 'no-metadata';

export interface SmallTrace {
  path: string;
  /** The line the variant planted its problem on (0 for clean variants). */
  line: number;
  t0: number;
  pid: number;
  lane: number;
  files: { a: string; b: string; c: string };
}

/**
 * A small training-step trace: dataloader fetch > item > open/read/read/close on a.bin, a leaf
 * compute `forward` [50, 150) overlapping a lane `pread` of b.bin [60, 110), a write of c.bin.
 * Known answers: I/O union 94 µs, compute self time 107 µs, overlap 50 µs; a.bin read 4196 B,
 * b.bin read 8192 B, c.bin written 1000 B.
 */
export function writeSmallTrace(path: string, variant: Variant = 'clean', opts: { pid?: number; t0?: number; memberBytes?: number } = {}): SmallTrace {
  const pid = opts.pid ?? 4242;
  const t0 = opts.t0 ?? 1760934170000000;
  const lane = pid * 16 + 1;
  const w = new TraceWriter({ path, pid, metadata: variant !== 'no-metadata', memberBytes: opts.memberBytes ?? 512 });
  const files = { a: '/data/a.bin', b: '/data/b.bin', c: '/data/out/c.bin' };
  let line = 0;
  w.header();
  w.processName('python train.py');
  w.threadName(lane, 'fs lane 1');
  w.start(t0);
  const A = w.fileHash(files.a);
  const fetch = w.begin('fetch', 'dataloader', t0 + 10);
  const item = w.begin('item', 'data', t0 + 11);
  w.complete('open', 'POSIX', t0 + 12, 3, { args: { fhash: A, flags: 0, ret: 3 } });
  if (variant === 'bad-json') {
    line = w.lines + 1;
    w.raw('{"id":999,"name":"read","cat":"POSIX","pid":' + pid + ',"tid":' + pid + ',"ts":' + (t0 + 13) + ',"dur":1,"ph":"X","args":{"hhash":');
  }
  w.complete('read', 'POSIX', t0 + 16, 10, { args: { fhash: A, count: 4096, offset: 0, ret: 4096 } });
  if (variant === 'field-order') {
    line = w.lines + 1;
    // not counted in num_events: the validator does not count a line it rejects either
    w.raw(`{"id":998,"name":"lseek","cat":"POSIX","pid":${pid},"ts":${t0 + 26},"tid":${pid},"dur":0,"ph":"X","args":{"hhash":"${w.hhash}","level":3,"p_idx":${item.id},"fhash":"${A}","offset":4096,"whence":0,"ret":4096}}`);
  }
  w.complete('read', 'POSIX', t0 + 27, 10, { args: { fhash: A, count: 4096, offset: 4096, ret: 100 } });
  w.complete('close', 'POSIX', t0 + 38, 1, { args: { fhash: A, ret: 0 } });
  if (variant === 'outside-parent') {
    line = w.lines + 1;
    // an async child on the lane, ending at 44 while its parent `item` ends at 40
    w.complete('fstat', 'POSIX', t0 + 39, 5, { tid: lane, parent: item, args: { fhash: A, ret: 0 } });
  }
  w.exit(item, t0 + 40);
  w.exit(fetch, t0 + 41);
  const forward = w.begin('forward', 'compute', t0 + 50);
  const B = w.fileHash(files.b);
  w.complete('pread', 'POSIX', t0 + 60, 50, { tid: lane, parent: null, args: { fhash: B, count: 8192, offset: 0, ret: 8192 } });
  if (variant === 'overlap') {
    line = w.lines + 1;
    // partially overlaps the lane's pread [60, 110] on the same lane
    w.complete('pread', 'POSIX', t0 + 100, 30, { tid: lane, parent: null, args: { fhash: B, count: 10, offset: 8192, ret: 10 } });
  }
  w.exit(forward, t0 + 150);
  const C = w.fileHash(files.c);
  w.complete('write', 'POSIX', t0 + 200, 20, { args: { fhash: C, count: 1000, offset: 0, ret: 1000 } });
  if (variant === 'unknown-fhash') {
    line = w.lines + 1;
    w.complete('stat', 'POSIX', t0 + 230, 2, { args: { fhash: '0123456789abcdef', ret: 0 } });
  }
  if (variant === 'missing-parent') {
    line = w.lines + 1;
    // p_idx 5000 names no event, and cannot be a parent still open (a parent's id is smaller)
    w.writeComplete({ id: 4999, name: 'step', cat: 'compute', tid: pid, ts: t0 + 241, level: 2, pIdx: 5000 }, 2);
  }
  if (variant === 'duplicate-id') {
    line = w.lines + 1;
    w.writeComplete({ id: fetch.id, name: 'again', cat: 'compute', tid: pid, ts: t0 + 250, level: 1, pIdx: -1 }, 3);
  }
  if (variant === 'wrong-num-events') {
    line = w.lines + 1;
    w.end(t0 + 300, ['posix'], w.records + 1);
  } else if (variant !== 'unfinished') {
    w.end(t0 + 300);
  }
  w.close();
  return { path, line, t0, pid, lane, files };
}

/** Cut a file's last `bytes` bytes (a truncated last gzip member). */
export function truncateTail(path: string, bytes: number): void {
  truncateSync(path, statSync(path).size - bytes);
}
