/**
 * The analyzer's epoch and step views against the program's own clock. A child process runs a
 * simulated training loop written with @dftracer/ai (epochs, a data loader whose batches read a real
 * file, forward/backward compute) into a real trace, and records `performance.now()` around every
 * fetch, read, compute call, step and epoch. The expected figures are interval arithmetic over
 * those readings, never the analyzer's own output: per epoch and per step the wall, compute, data
 * wait, I/O and I/O under compute within a millisecond, the bytes exactly, and the verdict naming
 * the largest share. A loaded machine can hold the program between a clock reading and the
 * tracer's stamp beside it; the time it was held there (waiting for a CPU outside its busy loops,
 * or in a GC pause, both measured by the program) is added to the millisecond.
 *
 * Programs: data-bound, compute-bound, a stalled step, prefetch overlapped with compute (async),
 * nested spans of one category (compute.step around forward/backward, data.item inside the fetch).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { summarize, type Summary } from '@dftracer/analyzer';
import { tempDir } from '@dftracer/testing';
import { beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const aiEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const coreEntry = join(dirname(require.resolve('@dftracer/core/package.json')), 'dist', 'index.js');
const cli = join(dirname(require.resolve('@dftracer/analyzer/package.json')), 'dist', 'cli.js');

/**
 * The traced program. argv: scenario, trace path prefix, data file. Prints one JSON line: every
 * interval it timed (µs on its own clock), the bytes each step read, and at each boundary `off`:
 * the µs the OS has so far kept it waiting for a CPU (/proc schedstat's run_delay) outside its own
 * busy loops, and the GC pauses it saw. Either can fall between a clock reading and the tracer's
 * stamp beside it, the one way the two can part; on an idle machine both are near 0.
 */
const PROGRAM = `
import { initializeLog, finalize } from ${JSON.stringify(pathToFileURL(coreEntry).href)};
import { ai } from ${JSON.stringify(pathToFileURL(aiEntry).href)};
import fs from 'node:fs';
const [scenario, logFile, dataFile] = process.argv.slice(2);
const now = () => performance.now() * 1000;
const SCHED = '/proc/thread-self/schedstat';
const hasSched = fs.existsSync(SCHED);
// µs the busy loops lost to the OS (gaps between successive clock readings): harmless, both clocks see them
let spinLost = 0;
const spin = (ms) => {
  let p = performance.now();
  const end = p + ms;
  for (;;) {
    const q = performance.now();
    if (q - p > 0.05) spinLost += (q - p) * 1000;
    p = q;
    if (q >= end) break;
  }
};
const off = () => (hasSched ? Number(fs.readFileSync(SCHED, 'utf8').split(' ')[1]) / 1000 - spinLost : 0);
const CHUNK = 4 << 20;
const SIZE = fs.statSync(dataFile).size;
const rec = { epochs: [], steps: [], reads: [], computes: [], waits: [], stepSpans: [], gc: [], preads: 0, bytes: 0, off0: off(), off1: 0 };
// GC pauses stop the program wherever they fall, also between a clock reading and a stamp
const gcs = new PerformanceObserver((l) => { for (const e of l.getEntries()) rec.gc.push([e.startTime * 1000, (e.startTime + e.duration) * 1000]); });
gcs.observe({ entryTypes: ['gc'] });

initializeLog({ enable: true, logFile, dataDir: dataFile.slice(0, dataFile.lastIndexOf('/')), compression: false });
let o = now();
const fd = fs.openSync(dataFile, 'r');
rec.reads.push([o, now()]);
const buf = Buffer.allocUnsafe(CHUNK);
let at = 0;
/** One traced read of 4 MiB, timed. */
function readChunk() {
  const t0 = now();
  const n = fs.readSync(fd, buf, 0, CHUNK, at);
  rec.reads.push([t0, now()]);
  rec.preads++;
  rec.bytes += n;
  at = (at + CHUNK) % SIZE;
  return n;
}
// per scenario: 4 MiB reads and ms of decoding per batch, ms of forward and of backward per step
const plans = {
  'data-bound': { chunks: 1, decode: 8, forward: 1.5, backward: 1.5 },
  'compute-bound': { chunks: 1, decode: 1, forward: 4, backward: 4 },
  stalled: { chunks: 1, decode: 1, forward: 3, backward: 3, stall: { epoch: 2, step: 3, ms: 100 } },
  nested: { chunks: 1, decode: 2, forward: 3, backward: 2 },
  prefetch: { chunks: 1, decode: 0, forward: 4, backward: 4 },
};
const plan = plans[scenario];
const EPOCHS = [1, 2];
const STEPS = 4;
const forward = ai.compute.forward(() => spin(plan.forward));
const backward = ai.compute.backward(() => spin(plan.backward));
const item = ai.data.item((k) => { let n = 0; for (let c = 0; c < k; c++) n += readChunk(); return n; });
const computeStep = ai.compute.step(() => { forward(); backward(); });

/**
 * Forward then backward (or the one compute.step around both when nested), timed as one interval:
 * the µs between the two calls are not compute, but each clock reading beside a traced call is a
 * place where the OS may preempt the program between its clock and the tracer's.
 */
function compute() {
  const t0 = now();
  if (scenario === 'nested') computeStep();
  else {
    forward();
    backward();
  }
  rec.computes.push([t0, now()]);
  if (scenario === 'nested') rec.stepSpans.push(rec.computes[rec.computes.length - 1]);
}

function* batches(epoch) {
  for (let s = 1; s <= STEPS; s++) {
    let bytes = 0;
    if (scenario === 'nested') bytes = item(plan.chunks);
    else for (let c = 0; c < plan.chunks; c++) bytes += readChunk();
    spin(plan.decode + (plan.stall && plan.stall.epoch === epoch && plan.stall.step === s ? plan.stall.ms : 0));
    yield bytes;
  }
}

/** The prefetching loader: batch s + 1's read is issued before batch s is handed over. */
async function* prefetching(fh) {
  const bufs = [Buffer.allocUnsafe(plan.chunks * CHUNK), Buffer.allocUnsafe(plan.chunks * CHUNK)];
  let k = 0;
  const readAsync = async (pos) => {
    const b = bufs[k++ % 2];
    const t0 = now();
    const r = await fh.read(b, 0, b.length, pos % (SIZE - b.length));
    rec.reads.push([t0, now()]);
    return r.bytesRead;
  };
  let pos = 0;
  let next = readAsync(pos);
  for (let s = 1; s <= STEPS; s++) {
    const bytes = await next;
    pos += plan.chunks * CHUNK;
    next = s < STEPS ? readAsync(pos) : null;
    yield bytes;
  }
}

// warm-up, before any epoch or step arg (so it makes no window): first calls compile and set up
for (let i = 0; i < 3; i++) {
  readChunk();
  item(1);
  for (const f of [forward, backward, computeStep]) {
    const t0 = now();
    f();
    rec.computes.push([t0, now()]);
    if (f === computeStep) rec.stepSpans.push(rec.computes[rec.computes.length - 1]);
  }
}

let stepEnd = 0;
let stepOff = 0;
/** A step ends: its interval and the off-CPU readings at both ends. */
function stepDone(epoch, step, bytes) {
  const end = now();
  const o = off();
  rec.steps.push({ epoch, step, start: stepEnd, end, bytes, off0: stepOff, off1: o });
  stepEnd = end;
  stepOff = o;
}
async function epochBody(epoch, t0, o0) {
  stepEnd = t0;
  stepOff = o0;
  if (scenario === 'prefetch') {
    let o0 = now();
    const fh = await fs.promises.open(dataFile, 'r');
    rec.reads.push([o0, now()]);
    const it = ai.dataloader.fetch.iter(prefetching(fh))[Symbol.asyncIterator]();
    for (let s = 1; ; s++) {
      const w0 = now();
      const r = await it.next();
      const w1 = now();
      if (r.done) break;
      rec.waits.push([w0, w1]);
      ai.update({ step: s });
      compute();
      stepDone(epoch, s, 0);
    }
    o0 = now();
    await fh.close();
    rec.reads.push([o0, now()]);
    return;
  }
  const it = ai.dataloader.fetch.iter(batches(epoch))[Symbol.iterator]();
  for (let s = 1; ; s++) {
    const w0 = now();
    const r = it.next();
    const w1 = now();
    if (r.done) break;
    rec.waits.push([w0, w1]);
    ai.update({ step: s });
    compute();
    stepDone(epoch, s, r.value);
  }
}

for (const epoch of EPOCHS) {
  ai.update({ epoch, step: 0 });
  const o0 = off();
  const t0 = now();
  await ai.pipeline.epoch.run(() => epochBody(epoch, t0, o0));
  const end = now();
  rec.epochs.push({ epoch, start: t0, end, off0: o0, off1: off() });
}
o = now();
fs.closeSync(fd);
rec.reads.push([o, now()]);
finalize();
rec.off1 = off();
await new Promise((r) => setTimeout(r, 20));
gcs.disconnect();
console.log(JSON.stringify(rec));
`;

type Interval = [number, number];
/** µs kept off the CPU outside busy loops, read at a window's start and end. */
interface OffCpu {
  off0: number;
  off1: number;
  /** The window on the program's clock, for the GC pauses in it (none: the whole run). */
  start?: number;
  end?: number;
}
interface Recorded extends OffCpu {
  epochs: Array<{ epoch: number; start: number; end: number } & OffCpu>;
  steps: Array<{ epoch: number; step: number; start: number; end: number; bytes: number } & OffCpu>;
  reads: Interval[];
  computes: Interval[];
  waits: Interval[];
  /** The compute.step calls (nested scenario and warm-up). */
  stepSpans: Interval[];
  /** GC pauses (PerformanceObserver). */
  gc: Interval[];
  /** Sync reads (readSync: pread) and the bytes they returned. */
  preads: number;
  bytes: number;
}

/** Sorted, merged intervals of `xs` clipped to `w`. */
function clip(xs: Interval[], w: Interval): Interval[] {
  const c = xs.map(([s, e]): Interval => [Math.max(s, w[0]), Math.min(e, w[1])]).filter(([s, e]) => e > s);
  c.sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const x of c) {
    const last = out[out.length - 1];
    if (last && x[0] <= last[1]) last[1] = Math.max(last[1], x[1]);
    else out.push([...x]);
  }
  return out;
}
const len = (xs: Interval[]) => xs.reduce((a, [s, e]) => a + e - s, 0);
/** |a ∩ b| of two merged interval lists. */
function overlap(a: Interval[], b: Interval[]): number {
  let t = 0;
  for (const [s, e] of a) for (const [u, v] of b) t += Math.max(0, Math.min(e, v) - Math.max(s, u));
  return t;
}

interface Truth {
  wall: number;
  compute: number;
  wait: number;
  io: number;
  overlap: number;
  /** I/O neither under compute nor in a data wait. */
  ioOnly: number;
}
/** What the program's clock says of a window: compute, data wait outside compute, I/O, I/O under compute, I/O outside both. */
function truth(r: Recorded, w: Interval): Truth {
  const comp = clip(r.computes, w);
  const waits = clip(r.waits, w);
  const io = clip(r.reads, w);
  const busy = clip([...comp, ...waits], w);
  return { wall: w[1] - w[0], compute: len(comp), wait: len(waits) - overlap(waits, comp), io: len(io), overlap: overlap(io, comp), ioOnly: len(io) - overlap(io, busy) };
}

/**
 * Within a millisecond. The clock is read just outside each traced call, so each interval differs
 * from the tracer's by its wrapper's few µs, unless the OS holds the program off the CPU right
 * there: the time it did so in the window (outside the program's busy loops, where it parts
 * nothing) is added. On an idle machine that is 0; a loaded one may retry with a fresh program.
 */
const TOLERANCE_US = 1000;
const RETRY = { retry: 3 };
let gcPauses: Interval[] = [];
const slack = (w: OffCpu) => Math.max(0, w.off1 - w.off0) + len(clip(gcPauses, [w.start ?? -Infinity, w.end ?? Infinity]));
const close = (got: number, want: number, what: string, w: OffCpu) =>
  expect(Math.abs(got - want), `${what}: analyzer ${got.toFixed(0)} µs, clock ${want.toFixed(0)} µs, off CPU ${slack(w).toFixed(0)} µs`).toBeLessThanOrEqual(TOLERANCE_US + slack(w));

/**
 * The verdict words the clock's shares allow, with each share (µs): the largest, and any within the
 * measurement's tolerance of it. The clock cannot tell other traced work from idle (both are the
 * rest of the wall), so the rest allows either word.
 */
function verdictsAllowed(t: Truth, tol: number): Map<string, number> {
  const rest = Math.max(0, t.wall - t.compute - t.wait - t.ioOnly);
  const shares: Array<[string[], number]> = [
    [['compute-bound'], t.compute],
    [['data-bound'], t.wait],
    [['I/O-bound'], t.ioOnly],
    [['other-bound', 'idle'], rest],
  ];
  const top = Math.max(...shares.map(([, v]) => v));
  return new Map(shares.filter(([, v]) => v >= top - 2 * tol).flatMap(([words, v]) => words.map((w): [string, number] => [w, v])));
}
/** The verdict names a largest share by the clock, and its % as the clock has it. */
function checkVerdict(v: string, t: Truth, what: string, w: OffCpu): void {
  const tol = TOLERANCE_US + slack(w);
  const allowed = verdictsAllowed(t, tol);
  const m = /^([\w/-]+): (\d+) % /.exec(v);
  expect([...allowed.keys()], `${what}: "${v}"`).toContain(m?.[1]);
  // a share rounds to a whole %; the tolerance moves it by 100 × tol / wall (the rest holds other and idle both)
  const clockPct = (100 * allowed.get(m![1]!)!) / t.wall;
  const off = Number(m![2]) - clockPct;
  expect(m![1] === 'other-bound' || m![1] === 'idle' ? off : Math.abs(off), `${what}: "${v}" vs ${clockPct.toFixed(1)} %`).toBeLessThanOrEqual(1 + (100 * tol) / t.wall);
}

let dir = '';
let runs = 0;
let dataFile = '';
beforeAll(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'data'));
  dataFile = join(dir, 'data', 'shard.bin');
  writeFileSync(dataFile, Buffer.alloc(24 << 20, 7));
  writeFileSync(join(dir, 'program.mjs'), PROGRAM);
});

/** Run a scenario's program; its trace and what its clock recorded. */
function runProgram(scenario: string): { trace: string; rec: Recorded } {
  const work = join(dir, `${scenario}-${++runs}`);
  mkdirSync(work, { recursive: true });
  const r = spawnSync(process.execPath, [join(dir, 'program.mjs'), scenario, join(work, 'trace'), dataFile], { encoding: 'utf8', cwd: work, env: { ...process.env, DFTRACER_ENABLE: '1' } });
  expect(r.status, r.stderr).toBe(0);
  const traces = readdirSync(work).filter((f) => /^trace.*\.pfw$/.test(f));
  expect(traces).toHaveLength(1);
  const rec = JSON.parse(r.stdout.trim().split('\n').pop()!) as Recorded;
  gcPauses = rec.gc;
  return { trace: join(work, traces[0]!), rec };
}

/** Every epoch and step of the summary against the clock. */
function checkViews(s: Summary, rec: Recorded, opts: { bytes: boolean }): void {
  const p = s.phases;
  expect(p.epoch_source).toBe('spans');
  expect(p.step_source).toBe('step-arg');
  expect(p.epochs.map((e) => e.label)).toEqual(rec.epochs.map((e) => `epoch ${e.epoch}`));
  expect(p.steps.map((x) => x.label)).toEqual(rec.steps.map((x) => `epoch ${x.epoch} step ${x.step}`));
  // the program's clock and the tracer's differ by an offset: positions relative to the first epoch
  const t0 = { clock: rec.epochs[0]!.start, trace: p.epochs[0]!.start_us };
  rec.epochs.forEach((e, i) => {
    const got = p.epochs[i]!;
    const t = truth(rec, [e.start, e.end]);
    const what = `epoch ${e.epoch}`;
    close(got.start_us - t0.trace, e.start - t0.clock, `${what} start`, { off0: rec.epochs[0]!.off0, off1: e.off1, start: rec.epochs[0]!.start, end: e.end });
    close(got.wall_us, t.wall, `${what} wall`, e);
    close(got.compute_us, t.compute, `${what} compute`, e);
    close(got.wait_us, t.wait, `${what} data wait`, e);
    close(got.io_us, t.io, `${what} I/O`, e);
    close(got.overlap_us, t.overlap, `${what} I/O under compute`, e);
    checkVerdict(got.verdict, t, what, e);
  });
  rec.steps.forEach((x, i) => {
    const got = p.steps[i]!;
    const t = truth(rec, [x.start, x.end]);
    const what = `epoch ${x.epoch} step ${x.step}`;
    close(got.start_us - t0.trace, x.start - t0.clock, `${what} start`, { off0: rec.epochs[0]!.off0, off1: x.off1, start: rec.epochs[0]!.start, end: x.end });
    close(got.wall_us, t.wall, `${what} wall`, x);
    close(got.compute_us, t.compute, `${what} compute`, x);
    close(got.wait_us, t.wait, `${what} data wait`, x);
    close(got.io_us, t.io, `${what} I/O`, x);
    close(got.overlap_us, t.overlap, `${what} I/O under compute`, x);
    if (opts.bytes) expect(got.bytes_read, `${what} bytes read`).toBe(x.bytes);
    checkVerdict(got.verdict, t, what, x);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** µs from the CLI's "8.31 ms" / "950 µs" / "1.2 s". */
const us = (text: string) => {
  const m = /^(-?[\d.]+) (µs|ms|s)$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * { µs: 1, ms: 1e3, s: 1e6 }[m[2] as 'µs' | 'ms' | 's'];
};
const D = '(-?[\\d.]+ (?:µs|ms|s))';

describe.skipIf(!existsSync(aiEntry))('the epoch and step views against the program clock', () => {
  it('data-bound: waits for batches longer than it computes', RETRY, async () => {
    const { trace, rec } = runProgram('data-bound');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, rec, { bytes: true });
    // the program did what it meant (by its clock: a loaded machine can stretch its compute; then it runs again)
    expect(rec.steps.filter((x) => verdictsAllowed(truth(rec, [x.start, x.end]), 0).has('data-bound')).length).toBeGreaterThanOrEqual(rec.steps.length / 2);
  });

  it('compute-bound: computes longer than it waits', RETRY, async () => {
    const { trace, rec } = runProgram('compute-bound');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, rec, { bytes: true });
    expect(rec.epochs.filter((x) => verdictsAllowed(truth(rec, [x.start, x.end]), 0).has('compute-bound'))).toHaveLength(rec.epochs.length);
  });

  it('nested spans of one category: compute.step around forward/backward counts once, data.item inside the fetch', RETRY, async () => {
    const { trace, rec } = runProgram('nested');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, rec, { bytes: true });
    // every compute event is nested: compute.step's busy time is the program's compute, not the sum of three
    const stepSpan = s.by_name.find((n) => n.cat === 'compute' && n.name === 'step')!;
    close(stepSpan.busy_us, len(clip(rec.stepSpans, [-Infinity, Infinity])), 'compute.step busy', rec);
    close(s.by_cat.find((c) => c.cat === 'compute')!.busy_us, len(clip(rec.computes, [-Infinity, Infinity])), 'compute busy', rec);
    // and the self time of the three adds up to it, not to three times it
    const self = s.by_name.filter((n) => n.cat === 'compute').reduce((a, n) => a + n.self_us, 0);
    close(self, len(clip(rec.computes, [-Infinity, Infinity])), 'compute self', rec);
  });

  it('overlapped prefetch: the next batch reads while this one computes, so nothing waits', RETRY, async () => {
    const { trace, rec } = runProgram('prefetch');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, rec, { bytes: false });
    // the prefetch really overlapped: most of each read ran under compute
    const under = rec.steps.map((x) => truth(rec, [x.start, x.end]).overlap);
    expect(under.filter((o) => o > 2000).length).toBeGreaterThanOrEqual(rec.steps.length - 2);
    expect(s.per_process[0]).toMatchObject({ threads: 1 });
  });

  it('a stalled step: named the slowest, with its data wait and the median data wait of a step — and every label the summary prints', RETRY, async () => {
    const { trace, rec } = runProgram('stalled');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, rec, { bytes: true });
    const steps = rec.steps.map((x) => ({ ...x, t: truth(rec, [x.start, x.end]) }));
    const stalled = steps.find((x) => x.epoch === 2 && x.step === 3)!;
    // a median may come from any step: the most any step was held off the CPU
    const worst: OffCpu = { off0: 0, off1: Math.max(...steps.map(slack)), start: 0, end: 0 };
    // by the clock the stalled step is the slowest, and mostly waiting (else the load broke the program: it runs again)
    const byWall = [...steps].sort((a, b) => b.t.wall - a.t.wall);
    expect(byWall[0]).toBe(stalled);
    expect(verdictsAllowed(stalled.t, 0).has('data-bound')).toBe(true);
    expect(s.phases.slowest_steps[0]!.label).toBe('epoch 2 step 3');

    // the printed summary, label by label
    const r = spawnSync(process.execPath, [cli, 'summary', trace], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } });
    expect(r.status, r.stderr).toBe(0);
    const text = r.stdout;
    const all = truth(rec, [-Infinity, Infinity]);
    // the first line's run totals: compute, data wait, I/O and the part of it under compute
    const head = new RegExp(`^compute ${D} \\([\\d.]+%\\)  data wait ${D} \\([\\d.]+%\\)  I/O ${D} \\([\\d.]+%, ${D} of it under compute\\)`, 'm').exec(text);
    expect(head, text).not.toBeNull();
    close(us(head![1]!), all.compute, 'printed compute', rec);
    close(us(head![2]!), all.wait, 'printed data wait', rec);
    close(us(head![3]!), all.io, 'printed I/O', rec);
    close(us(head![4]!), all.overlap, 'printed I/O under compute', rec);
    expect(text).toMatch(/^verdict: compute-bound: \d+ % computing/m);
    // the medians, each named for the figure it is a median of
    const med = new RegExp(`^Steps: 8 \\(from step-arg\\); median of a step: wall ${D}, compute ${D}, data wait ${D},`, 'm').exec(text);
    expect(med, text).not.toBeNull();
    close(us(med![1]!), median(steps.map((x) => x.t.wall)), 'printed median wall of a step', worst);
    close(us(med![2]!), median(steps.map((x) => x.t.compute)), 'printed median compute of a step', worst);
    close(us(med![3]!), median(steps.map((x) => x.t.wait)), 'printed median data wait of a step', worst);
    // the slowest step: its wall, and its data wait beside the median data wait of a step
    const slow = new RegExp(`^epoch 2 step 3\\s+${D}\\s+\\+${D}\\s+data wait ${D} \\(median data wait of a step ${D}\\)$`, 'm').exec(text);
    expect(slow, text).not.toBeNull();
    close(us(slow![1]!), stalled.t.wall, 'printed slowest step wall', stalled);
    close(us(slow![3]!), stalled.t.wait, 'printed slowest step data wait', stalled);
    close(us(slow![4]!), median(steps.map((x) => x.t.wait)), 'printed median data wait beside it', worst);
    // the epoch rows: wall, compute and data wait with their shares, and the verdict
    for (const e of rec.epochs) {
      const t = truth(rec, [e.start, e.end]);
      const row = new RegExp(`^epoch ${e.epoch}\\s+${D}\\s+${D}\\s+\\d+%\\s+${D}\\s+\\d+%.*\\s(\\S+-bound|idle): (\\d+) %`, 'm').exec(text);
      expect(row, text).not.toBeNull();
      close(us(row![1]!), t.wall, `printed epoch ${e.epoch} wall`, e);
      close(us(row![2]!), t.compute, `printed epoch ${e.epoch} compute`, e);
      close(us(row![3]!), t.wait, `printed epoch ${e.epoch} data wait`, e);
      expect([...verdictsAllowed(t, TOLERANCE_US + slack(e)).keys()]).toContain(row![4]);
    }
    // one thread, whatever lanes it used
    expect(text).toMatch(/^\s*\d+\s+program\.mjs \(\d+\)\s+\S+\s+1\s+\d+\s+\d+\s/m);
    // the bytes it read (4 MiB a read), in the first line and the file table: its reads and the open and close
    const mib = `${rec.bytes / 2 ** 20} MiB`;
    expect(text).toMatch(new RegExp(`  read ${mib}  written 0 B$`, 'm'));
    const fileRow = new RegExp(`^\\S*shard\\.bin\\s+${rec.preads + 2}\\s+${mib}\\s+.*\\s${D}$`, 'm').exec(text);
    expect(fileRow, text).not.toBeNull();
    const readSum = rec.reads.reduce((a, [b, e]) => a + e - b, 0);
    close(us(fileRow![1]!), readSum, 'printed I/O time of the file', rec);
    // by name: the reads, and the loader's waits with the longest the stalled one
    const pread = new RegExp(`^POSIX\\s+pread\\s+${rec.preads}\\s+${D}`, 'm').exec(text);
    expect(pread, text).not.toBeNull();
    close(us(pread![1]!), readSum, 'printed pread busy', rec);
    const fetch = new RegExp(`^dataloader\\s+fetch\\.iter\\s+${rec.waits.length}\\s+${D}\\s+${D}\\s+${D}\\s+${D}\\s+${D}\\s+${D}\\s+${D}$`, 'm').exec(text);
    expect(fetch, text).not.toBeNull();
    close(us(fetch![1]!), len(clip(rec.waits, [-Infinity, Infinity])), 'printed fetch.iter busy', rec);
    const stalledWait = rec.waits.map(([b, e]) => e - b).reduce((a, b) => Math.max(a, b), 0);
    close(us(fetch![7]!), stalledWait, 'printed longest fetch.iter', stalled);

    // --by step: one row per step, each as the clock has it
    const byStep = spawnSync(process.execPath, [cli, 'summary', '--by', 'step', trace], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } }).stdout;
    expect(byStep).toMatch(/^By step \(8 steps, from step-arg;/m);
    for (const x of steps) {
      const row = new RegExp(`^epoch ${x.epoch} step ${x.step}\\s+${D}\\s+${D}\\s+\\d+%\\s+${D}\\s+\\d+%`, 'm').exec(byStep);
      expect(row, byStep).not.toBeNull();
      close(us(row![1]!), x.t.wall, `printed epoch ${x.epoch} step ${x.step} wall`, x);
      close(us(row![2]!), x.t.compute, `printed epoch ${x.epoch} step ${x.step} compute`, x);
      close(us(row![3]!), x.t.wait, `printed epoch ${x.epoch} step ${x.step} data wait`, x);
    }
  });
});
