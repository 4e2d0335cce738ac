/**
 * A synthetic but realistic trace: a training loop that loads samples from files (dataloader →
 * item → open/read/close), computes (step → forward/backward), prefetches asynchronously on two
 * lane tids (I/O overlapping compute) and checkpoints now and then. Used by tests and by the
 * benchmark (10 M events). Deterministic for a given seed.
 */
import { TraceWriter, type Args, type TraceWriterOptions } from './trace-writer.test-util.js';

export interface SyntheticOptions extends TraceWriterOptions {
  /** Approximate number of complete events to write (start and end included). */
  events: number;
  seed?: number;
  /** Number of distinct data files (default 64). */
  files?: number;
  /** First timestamp, µs since the epoch. */
  t0?: number;
  /** A `step` arg on every event (as a framework that tags each call with its step), not only on the step spans. */
  stepOnEvery?: boolean;
  /** Every event gets a name of its own (`read #123`: as a trace naming each call by its file or request). */
  distinctNames?: boolean;
}

export interface SyntheticResult {
  path: string;
  completeEvents: number;
  lines: number;
  firstTs: number;
  lastTs: number;
}

/** mulberry32: a tiny deterministic PRNG (tests use it too, so a failure reproduces). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function writeSyntheticTrace(opts: SyntheticOptions): SyntheticResult {
  const w = tagged(new TraceWriter({ memberBytes: 256 * 1024, ...opts }), opts, () => step);
  const rnd = prng(opts.seed ?? 1);
  const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const nFiles = opts.files ?? 64;
  const files: string[] = [];
  for (let i = 0; i < nFiles; i++) files.push(`/data/train/sample_${String(i).padStart(5, '0')}.bin`);
  const lanes = [w.tid * 16 + 1, w.tid * 16 + 2];
  let step = 0;
  const firstTs = opts.t0 ?? 1760934170000000;
  let t = firstTs;

  w.header();
  w.processName(`node app.js (rank 0)`);
  lanes.forEach((tid, i) => w.threadName(tid, `fs lane ${i + 1}`));
  w.start(t);
  t += 50;
  const budget = Math.max(2, opts.events) - 1; // leave room for `end`
  while (w.completeEvents + 30 < budget) {
    // Load a batch: dataloader.fetch > data.item > open, read, read, close.
    const fetch = w.begin('fetch', 'dataloader', t, { args: { step } });
    t += between(2, 10);
    for (let b = 0; b < 4; b++) {
      const item = w.begin('item', 'data', t, { args: { image_idx: step * 4 + b } });
      t += between(1, 5);
      const fh = w.fileHash(files[between(0, nFiles - 1)]!);
      const od = between(5, 15);
      w.complete('open', 'POSIX', t, od, { args: { fhash: fh, flags: 0, ret: 3 } });
      t += od + 1;
      const size = 65536 + between(0, 4) * 4096;
      let off = 0;
      for (let r = 0; r < 2; r++) {
        const want = 65536;
        const got = Math.min(want, size - off);
        const rd = between(20, 60);
        w.complete('read', 'POSIX', t, rd, { args: { fhash: fh, count: want, offset: off, ret: got } });
        off += got;
        t += rd + 1;
      }
      const cd = between(2, 5);
      w.complete('close', 'POSIX', t, cd, { args: { fhash: fh, ret: 0 } });
      t += cd + between(1, 20);
      w.exit(item, t);
      t += 1;
    }
    w.exit(fetch, t);
    t += between(1, 5);

    // Compute, with two asynchronous prefetch reads on lane tids running at the same time.
    const s = w.begin('step', 'compute', t, { args: { epoch: 1, step } });
    const f = w.begin('forward', 'compute', t + 1);
    const fEnd = t + 1 + between(300, 800);
    for (const lane of lanes) {
      const fh = w.fileHash(files[between(0, nFiles - 1)]!);
      const ts = t + between(2, 100);
      w.complete('pread', 'POSIX', ts, between(40, 180), {
        tid: lane,
        parent: null,
        args: { fhash: fh, count: 131072, offset: 0, ret: 131072 },
      });
    }
    w.exit(f, fEnd);
    const bw = w.begin('backward', 'compute', fEnd + 1);
    const bEnd = fEnd + 1 + between(500, 1500);
    w.exit(bw, bEnd);
    t = bEnd + between(1, 10);
    w.exit(s, t);
    t += between(1, 30);

    // A checkpoint every 50 steps: open, 4 × 1 MiB write, fsync, close.
    if (step % 50 === 49) {
      const cp = w.begin('capture', 'checkpoint', t, { args: { step } });
      t += 3;
      const fh = w.fileHash(`/data/ckpt/model_${step}.bin`);
      w.complete('open', 'POSIX', t, 20, { args: { fhash: fh, flags: 577, mode: 420, ret: 4 } });
      t += 21;
      for (let k = 0; k < 4; k++) {
        const d = between(400, 900);
        w.complete('write', 'POSIX', t, d, { args: { fhash: fh, count: 1048576, offset: k * 1048576, ret: 1048576 } });
        t += d + 1;
      }
      const sd = between(1000, 3000);
      w.complete('fsync', 'POSIX', t, sd, { args: { fhash: fh, ret: 0 } });
      t += sd + 1;
      w.complete('close', 'POSIX', t, 4, { args: { fhash: fh, ret: 0 } });
      t += 5;
      w.exit(cp, t);
      t += 2;
    }
    step++;
  }
  // Pad with stat calls to land on the requested count.
  while (w.completeEvents < budget) {
    const fh = w.fileHash(files[between(0, nFiles - 1)]!);
    w.complete('stat', 'POSIX', t, 3, { args: { fhash: fh, ret: 0 } });
    t += 4;
  }
  w.end(t);
  w.close();
  return { path: w.path, completeEvents: w.completeEvents, lines: w.lines, firstTs, lastTs: t };
}

/** `w` with its events' names and args changed as `opts` asks (the tracer's own start and end left alone). */
function tagged(w: TraceWriter, opts: SyntheticOptions, step: () => number): TraceWriter {
  if (!opts.stepOnEvery && !opts.distinctNames) return w;
  const name = (n: string, cat: string) => (opts.distinctNames && cat !== 'dftracer' ? `${n} #${w.completeEvents}` : n);
  const args = <O extends { args?: Args }>(o: O | undefined, cat: string): O => (opts.stepOnEvery && cat !== 'dftracer' ? { ...(o ?? ({} as O)), args: { ...o?.args, step: step() } } : (o ?? ({} as O)));
  const begin = w.begin.bind(w);
  const complete = w.complete.bind(w);
  w.begin = (n, cat, ts, o) => begin(name(n, cat), cat, ts, args(o, cat));
  w.complete = (n, cat, ts, dur, o) => complete(name(n, cat), cat, ts, dur, args(o, cat));
  return w;
}
