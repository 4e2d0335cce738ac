/**
 * The analyzer's epoch and step views against the program's own clock. A child process runs a
 * simulated training loop written with @dftracer/ai (epochs, a data loader whose batches read a real
 * file, forward/backward compute) into a real trace, and records `performance.now()` around every
 * fetch, read, compute call, step and epoch. The expected figures are interval arithmetic over
 * those readings, never the analyzer's own output: per epoch and per step the wall, compute, data
 * wait, I/O and I/O under compute within a millisecond, the bytes exactly, and the verdict naming
 * the largest share. Every traced call is timed just outside it and, by the program's own code,
 * just inside it, so each stamp of the tracer lies in a bracket on the program's clock: the
 * millisecond is widened by exactly the parts of those brackets in the window (µs on an idle
 * machine; on a loaded one, the time the program was held between a reading and a stamp). So the
 * comparison holds under any load, with no retry.
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
import { readTrace, tempDir } from '@dftracer/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ALL,
  checkCalls,
  checkWindows,
  clip,
  close,
  len,
  outer,
  overlap,
  slack as bracketSlack,
  span,
  TOLERANCE_US,
  type Call,
  type Win,
  within,
} from './program-clock.test-util.js';

const require = createRequire(import.meta.url);
const aiEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const coreEntry = join(dirname(require.resolve('@dftracer/core/package.json')), 'dist', 'index.js');
const cli = join(dirname(require.resolve('@dftracer/analyzer/package.json')), 'dist', 'cli.js');

/**
 * The traced program. argv: scenario, trace path prefix, data file. Prints one JSON line: every
 * traced call it made, timed (µs on its own clock) just outside the call and first and last inside
 * it (its own function body, or its own wrapper under the tracer's for fs calls), each window's
 * ends as such brackets, and the bytes each step read.
 */
const PROGRAM = `
import { initializeLog, finalize } from ${JSON.stringify(pathToFileURL(coreEntry).href)};
import { ai } from ${JSON.stringify(pathToFileURL(aiEntry).href)};
import fs from 'node:fs';
const [scenario, logFile, dataFile] = process.argv.slice(2);
const now = () => performance.now() * 1000;
const spin = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
// every traced call as { o: [clock before the call, after it], i: [first reading inside it, last] }
// timeOrigin: the tracer's timestamps are µs since the epoch, from it and performance.now()
const rec = { origin: performance.timeOrigin, epochs: [], steps: [], reads: [], computes: [], waits: [], stepSpans: [], preads: 0, bytes: 0 };
// the last inner interval of each kind of call (at most one of a kind runs at a time)
const inner = {};
/** obj[name] reads the clock first and last inside the traced call (the tracer wraps this). */
function timedInside(obj, name, slot) {
  const real = obj[name];
  obj[name] = function (...a) {
    const i0 = now();
    const r = real.apply(this, a);
    if (r instanceof Promise) return r.then((v) => ((inner[slot] = [i0, now()]), v));
    inner[slot] = [i0, now()];
    return r;
  };
}
timedInside(fs, 'openSync', 'io');
timedInside(fs, 'readSync', 'io');
timedInside(fs, 'closeSync', 'io');
{
  // FileHandle#read: its prototype, before the tracer wraps it at the first fs.promises.open
  const fh = await fs.promises.open(dataFile, 'r');
  timedInside(Object.getPrototypeOf(fh), 'read', 'io');
  await fh.close();
}
/** Runs a traced call, recording the clock around it and inside it (slot), into list. */
function timed(list, slot, f) {
  inner[slot] = null;
  const o0 = now();
  const r = f();
  const call = { n: slot, o: [o0, now()], i: inner[slot] };
  list.push(call);
  return [r, call];
}
async function timedAsync(list, slot, f) {
  inner[slot] = null;
  const o0 = now();
  const r = await f();
  const call = { n: slot, o: [o0, now()], i: inner[slot] };
  list.push(call);
  return r;
}

const CHUNK = 4 << 20;
const SIZE = fs.statSync(dataFile).size;
// the run's window: the tracer's start and end events
let o0 = now();
initializeLog({ enable: true, logFile, dataDir: dataFile.slice(0, dataFile.lastIndexOf('/')), compression: false });
const run0 = [o0, now()];
const [fd] = timed(rec.reads, 'io', () => fs.openSync(dataFile, 'r'));
const buf = Buffer.allocUnsafe(CHUNK);
let at = 0;
/** One traced read of 4 MiB, timed. */
function readChunk() {
  const [n] = timed(rec.reads, 'io', () => fs.readSync(fd, buf, 0, CHUNK, at));
  rec.preads++;
  rec.bytes += n;
  at = (at + CHUNK) % SIZE;
  return n;
}
// per scenario: 4 MiB reads and ms of decoding per batch, ms of forward and of backward per step
const plans = {
  'data-bound': { chunks: 1, decode: 8, forward: 1.5, backward: 1.5 },
  'compute-bound': { chunks: 1, decode: 1, forward: 4, backward: 4 },
  // the stall: the last step's batch takes 100 ms, or twice the longest step before it if more (a
  // loaded machine stretches every step; the stalled one stays the slowest, by construction)
  stalled: { chunks: 1, decode: 1, forward: 3, backward: 3, stall: { epoch: 2, step: 4, ms: 100 } },
  nested: { chunks: 1, decode: 2, forward: 3, backward: 2 },
  prefetch: { chunks: 1, decode: 0, forward: 4, backward: 4 },
};
const plan = plans[scenario];
const EPOCHS = [1, 2];
const STEPS = 4;
/** A traced body that reads the clock first and last. */
const inside = (slot, f) => (...a) => {
  const i0 = now();
  const r = f(...a);
  inner[slot] = [i0, now()];
  return r;
};
const forward = ai.compute.forward(inside('forward', () => spin(plan.forward)));
const backward = ai.compute.backward(inside('backward', () => spin(plan.backward)));
const item = ai.data.item((k) => { let n = 0; for (let c = 0; c < k; c++) n += readChunk(); return n; });
const computeStep = ai.compute.step(inside('step', () => { forward(); backward(); }));

/**
 * Forward and backward, each timed (or the one compute.step around both when nested). Returns the
 * bracket of the last compute event's end, which ends the step: [last reading inside, first after].
 */
function compute() {
  if (scenario === 'nested') {
    const [, c] = timed(rec.computes, 'step', computeStep);
    rec.stepSpans.push(c);
    return [c.i[1], c.o[1]];
  }
  timed(rec.computes, 'forward', forward);
  const [, c] = timed(rec.computes, 'backward', backward);
  return [c.i[1], c.o[1]];
}

/**
 * Steps of the shape a scenario is named for, by the clock: a step that waits on data (or computes)
 * for more than half its wall time has that as its largest share whatever the rest is. A loaded
 * machine can stretch any step; the loader then hands over more batches (up to 4 × STEPS) until
 * the epoch has STEPS / 2 steps of its shape.
 */
const SHAPE = { 'data-bound': (x) => x.wait > x.wall / 2, 'compute-bound': (x) => x.compute > x.wall / 2 }[scenario];
const more = (epoch, s) => s <= STEPS || (SHAPE !== undefined && s <= 4 * STEPS && rec.steps.filter((x) => x.epoch === epoch && SHAPE(x)).length < STEPS / 2);
const longest = () => Math.max(0, ...rec.steps.map((x) => x.e[1] - x.s[0])) / 1000;
// the loader's own readings: when it resumes for a batch and when it hands it over
function* batches(epoch) {
  for (let s = 1; more(epoch, s); s++) {
    const i0 = now();
    let bytes = 0;
    if (scenario === 'nested') bytes = item(plan.chunks);
    else for (let c = 0; c < plan.chunks; c++) bytes += readChunk();
    spin(plan.decode + (plan.stall && plan.stall.epoch === epoch && plan.stall.step === s ? Math.max(plan.stall.ms, 2 * longest()) : 0));
    inner.wait = [i0, now()];
    yield bytes;
  }
}

/** The prefetching loader: batch s + 1's read is issued before batch s is handed over. */
async function* prefetching(fh) {
  const bufs = [Buffer.allocUnsafe(plan.chunks * CHUNK), Buffer.allocUnsafe(plan.chunks * CHUNK)];
  let k = 0;
  const readAsync = (pos) => {
    const b = bufs[k++ % 2];
    return timedAsync(rec.reads, 'io', () => fh.read(b, 0, b.length, pos % (SIZE - b.length))).then((r) => r.bytesRead);
  };
  let pos = 0;
  let next = readAsync(pos);
  for (let s = 1; s <= STEPS; s++) {
    const i0 = now();
    const bytes = await next;
    pos += plan.chunks * CHUNK;
    next = s < STEPS ? readAsync(pos) : null;
    inner.wait = [i0, now()];
    yield bytes;
  }
}

// warm-up, before any epoch or step arg (so it makes no window): first calls compile and set up
for (let i = 0; i < 3; i++) {
  readChunk();
  item(1);
  timed(rec.computes, 'forward', forward);
  timed(rec.computes, 'backward', backward);
  rec.stepSpans.push(timed(rec.computes, 'step', computeStep)[1]);
}

/**
 * Windows: each end as the bracket the tracer's stamp lies in, [lo, hi] on the program's clock.
 * A step runs from the previous one's end (its epoch's start for the first) to its last compute
 * event's end.
 */
let stepStart = null;
/** A step ends; with its wall, data wait and compute on the clock (for SHAPE). */
function stepDone(epoch, step, bytes, end) {
  const wait = rec.waits[rec.waits.length - 1].o;
  const compute = rec.computes.filter((c) => c.o[0] >= stepStart[1] && c.o[1] <= end[1]).reduce((a, c) => a + c.o[1] - c.o[0], 0);
  rec.steps.push({ epoch, step, s: stepStart, e: end, bytes, wall: end[1] - stepStart[1], wait: wait[1] - wait[0], compute });
  stepStart = end;
}
async function epochBody(epoch, fh) {
  if (scenario === 'prefetch') {
    const it = ai.dataloader.fetch.iter(prefetching(fh))[Symbol.asyncIterator]();
    for (let s = 1; ; s++) {
      inner.wait = null;
      const o0 = now();
      const r = await it.next();
      if (r.done) break;
      rec.waits.push({ n: 'wait', o: [o0, now()], i: inner.wait });
      ai.update({ step: s });
      stepDone(epoch, s, 0, compute());
    }
    return;
  }
  const it = ai.dataloader.fetch.iter(batches(epoch))[Symbol.iterator]();
  for (let s = 1; ; s++) {
    inner.wait = null;
    const o0 = now();
    const r = it.next();
    if (r.done) break;
    rec.waits.push({ n: 'wait', o: [o0, now()], i: inner.wait });
    ai.update({ step: s });
    stepDone(epoch, s, r.value, compute());
  }
}

const fh = scenario === 'prefetch' ? await fs.promises.open(dataFile, 'r') : null;
rec.run = { s: run0 };
for (const epoch of EPOCHS) {
  ai.update({ epoch, step: 0 });
  const e = { epoch };
  const o0 = now();
  await ai.pipeline.epoch.run(async () => {
    e.s = [o0, now()];
    stepStart = e.s;
    await epochBody(epoch, fh);
    e.i1 = now();
  });
  e.e = [e.i1, now()];
  delete e.i1;
  rec.epochs.push(e);
}
await fh?.close();
timed(rec.reads, 'io', () => fs.closeSync(fd));
o0 = now();
finalize();
rec.run.e = [o0, now()];
console.log(JSON.stringify(rec));
`;

interface Recorded {
  epochs: Array<{ epoch: number } & Win>;
  steps: Array<{ epoch: number; step: number; bytes: number } & Win>;
  /** From just before the tracer's start event to just after its end event. */
  run: Win;
  /** performance.timeOrigin (ms since the epoch). */
  origin: number;
  reads: Call[];
  computes: Call[];
  waits: Call[];
  /** The compute.step calls (nested scenario and warm-up). */
  stepSpans: Call[];
  /** Sync reads (readSync: pread) and the bytes they returned. */
  preads: number;
  bytes: number;
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
function truth(r: Recorded, win: Win): Truth {
  const w = span(win);
  const comp = clip(outer(r.computes), w);
  const waits = clip(outer(r.waits), w);
  const io = clip(outer(r.reads), w);
  const busy = clip([...comp, ...waits], w);
  return { wall: w[1] - w[0], compute: len(comp), wait: len(waits) - overlap(waits, comp), io: len(io), overlap: overlap(io, comp), ioOnly: len(io) - overlap(io, busy) };
}

let recorded: Recorded;
/** The brackets' parts in a window: the program's calls (see program-clock.test-util). */
const slack = (win: Win, r: Recorded = recorded) => bracketSlack(win, [...r.reads, ...r.computes, ...r.waits]);

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
function checkVerdict(v: string, t: Truth, what: string, slackUs: number): void {
  const tol = TOLERANCE_US + slackUs;
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
  recorded = rec;
  return { trace: join(work, traces[0]!), rec };
}

/**
 * The premise of the tolerance, exactly: each traced call of the program is one event of the trace
 * that lies between the clock's readings outside the call and holds those inside it, and each
 * epoch and the run start and end in their brackets. The tracer stamps µs since the epoch from
 * performance.timeOrigin and performance.now() (floored): the program's clock less the origin,
 * within the floor and the double's precision.
 */
function checkBrackets(trace: string, rec: Recorded): void {
  const complete = readTrace(trace).complete;
  checkCalls(complete, rec.origin, [...rec.computes, ...rec.reads, ...rec.waits], {
    forward: (e) => e.cat === 'compute' && e.name === 'forward',
    backward: (e) => e.cat === 'compute' && e.name === 'backward',
    step: (e) => e.cat === 'compute' && e.name === 'step',
    io: (e) => e.cat === 'POSIX',
    wait: (e) => e.cat === 'dataloader' && e.name === 'fetch.iter',
  });
  const epochs = complete.filter((e) => e.cat === 'pipeline' && e.name === 'epoch');
  checkWindows(epochs, rec.origin, rec.epochs.map((w) => ({ ...w, what: `epoch ${w.epoch}` })));
  const ev = complete.map((e) => ({ name: e.name, cat: e.cat, s: e.ts - rec.origin * 1000 }));
  within(ev.find((e) => e.cat === 'dftracer' && e.name === 'start')!.s, rec.run.s, 'the tracer\'s start');
  within(ev.find((e) => e.cat === 'dftracer' && e.name === 'end')!.s, rec.run.e, 'the tracer\'s end');
}

/** Every epoch and step of the summary against the clock. */
function checkViews(s: Summary, trace: string, rec: Recorded, opts: { bytes: boolean }): void {
  checkBrackets(trace, rec);
  const p = s.phases;
  expect(p.epoch_source).toBe('spans');
  expect(p.step_source).toBe('step-arg');
  expect(p.epochs.map((e) => e.label)).toEqual(rec.epochs.map((e) => `epoch ${e.epoch}`));
  expect(p.steps.map((x) => x.label)).toEqual(rec.steps.map((x) => `epoch ${x.epoch} step ${x.step}`));
  // the program's clock and the tracer's differ by an offset: positions relative to the first epoch
  const first = rec.epochs[0]!.s;
  const t0 = { clock: first[1], trace: p.epochs[0]!.start_us };
  const check = (got: (typeof p.epochs)[number], w: Win, what: string) => {
    const t = truth(rec, w);
    const sl = slack(w);
    // both starts lie in their brackets
    close(got.start_us - t0.trace, w.s[1] - t0.clock, `${what} start`, first[1] - first[0] + w.s[1] - w.s[0]);
    close(got.wall_us, t.wall, `${what} wall`, sl);
    close(got.compute_us, t.compute, `${what} compute`, sl);
    close(got.wait_us, t.wait, `${what} data wait`, sl);
    close(got.io_us, t.io, `${what} I/O`, sl);
    close(got.overlap_us, t.overlap, `${what} I/O under compute`, sl);
    checkVerdict(got.verdict, t, what, sl);
  };
  rec.epochs.forEach((e, i) => check(p.epochs[i]!, e, `epoch ${e.epoch}`));
  rec.steps.forEach((x, i) => {
    const what = `epoch ${x.epoch} step ${x.step}`;
    check(p.steps[i]!, x, what);
    if (opts.bytes) expect(p.steps[i]!.bytes_read, `${what} bytes read`).toBe(x.bytes);
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
  it('data-bound: waits for batches longer than it computes', async () => {
    const { trace, rec } = runProgram('data-bound');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, trace, rec, { bytes: true });
    // the program did what it meant: by its clock, STEPS / 2 steps of each epoch waited most
    for (const e of rec.epochs) expect(rec.steps.filter((x) => x.epoch === e.epoch && verdictsAllowed(truth(rec, x), 0).has('data-bound')).length).toBeGreaterThanOrEqual(2);
  });

  it('compute-bound: computes longer than it waits', async () => {
    const { trace, rec } = runProgram('compute-bound');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, trace, rec, { bytes: true });
    for (const e of rec.epochs) expect(rec.steps.filter((x) => x.epoch === e.epoch && verdictsAllowed(truth(rec, x), 0).has('compute-bound')).length).toBeGreaterThanOrEqual(2);
  });

  it('nested spans of one category: compute.step around forward/backward counts once, data.item inside the fetch', async () => {
    const { trace, rec } = runProgram('nested');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, trace, rec, { bytes: true });
    // every compute event is nested: compute.step's busy time is the program's compute, not the sum of three
    const stepSpan = s.by_name.find((n) => n.cat === 'compute' && n.name === 'step')!;
    close(stepSpan.busy_us, len(clip(outer(rec.stepSpans), span(ALL))), 'compute.step busy', slack(ALL));
    close(s.by_cat.find((c) => c.cat === 'compute')!.busy_us, truth(rec, ALL).compute, 'compute busy', slack(ALL));
    // and the self time of the three adds up to it, not to three times it
    const self = s.by_name.filter((n) => n.cat === 'compute').reduce((a, n) => a + n.self_us, 0);
    close(self, truth(rec, ALL).compute, 'compute self', slack(ALL));
  });

  it('overlapped prefetch: the next batch reads while this one computes, so nothing waits', async () => {
    const { trace, rec } = runProgram('prefetch');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, trace, rec, { bytes: false });
    // the prefetch really overlapped: most of each read ran under compute
    const under = rec.steps.map((x) => truth(rec, x).overlap);
    expect(under.filter((o) => o > 2000).length).toBeGreaterThanOrEqual(rec.steps.length - 2);
    expect(s.per_process[0]).toMatchObject({ threads: 1 });
  });

  it('a stalled step: named the slowest, with its data wait and the median data wait of a step — and every label the summary prints', async () => {
    const { trace, rec } = runProgram('stalled');
    const s = await summarize([trace], { threads: 1 });
    checkViews(s, trace, rec, { bytes: true });
    const steps = rec.steps.map((x) => ({ ...x, t: truth(rec, x), slack: slack(x) }));
    const stalled = steps.find((x) => x.epoch === 2 && x.step === 4)!;
    // a median may come from any step: the most any step was held off the CPU
    const worst = Math.max(...steps.map((x) => x.slack));
    // by the clock the stalled step is the slowest (its stall is twice any step before it)
    const byWall = [...steps].sort((a, b) => b.t.wall - a.t.wall);
    expect(byWall[0]).toBe(stalled);
    expect(s.phases.slowest_steps[0]!.label).toBe('epoch 2 step 4');

    // the printed summary, label by label
    const r = spawnSync(process.execPath, [cli, 'summary', trace], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } });
    expect(r.status, r.stderr).toBe(0);
    const text = r.stdout;
    const all = truth(rec, ALL);
    const allSlack = slack(ALL);
    // the first line's run totals: compute, data wait, I/O and the part of it under compute
    const head = new RegExp(`^compute ${D} \\([\\d.]+%\\)  data wait ${D} \\([\\d.]+%\\)  I/O ${D} \\([\\d.]+%, ${D} of it under compute\\)`, 'm').exec(text);
    expect(head, text).not.toBeNull();
    close(us(head![1]!), all.compute, 'printed compute', allSlack);
    close(us(head![2]!), all.wait, 'printed data wait', allSlack);
    close(us(head![3]!), all.io, 'printed I/O', allSlack);
    close(us(head![4]!), all.overlap, 'printed I/O under compute', allSlack);
    const verdictLine = /^verdict: (.*)$/m.exec(text);
    expect(verdictLine, text).not.toBeNull();
    checkVerdict(verdictLine![1]!, truth(rec, rec.run), 'printed verdict', slack(rec.run));
    // the medians, each named for the figure it is a median of
    const med = new RegExp(`^Steps: 8 \\(from step-arg\\); median of a step: wall ${D}, compute ${D}, data wait ${D},`, 'm').exec(text);
    expect(med, text).not.toBeNull();
    close(us(med![1]!), median(steps.map((x) => x.t.wall)), 'printed median wall of a step', worst);
    close(us(med![2]!), median(steps.map((x) => x.t.compute)), 'printed median compute of a step', worst);
    close(us(med![3]!), median(steps.map((x) => x.t.wait)), 'printed median data wait of a step', worst);
    // the slowest step: its wall, and what made it slow (the stall: its data wait, unless the load
    // stretched another figure further) beside that figure's median over the steps
    const slow = new RegExp(`^epoch 2 step 4\\s+${D}\\s+\\+${D}\\s+(data wait|compute|I/O outside compute|other work|idle) ${D} \\(median \\3 of a step ${D}\\)$`, 'm').exec(text);
    expect(slow, text).not.toBeNull();
    close(us(slow![1]!), stalled.t.wall, 'printed slowest step wall', stalled.slack);
    // the clock cannot tell other work from idle: both are the rest of the wall
    const fig = (t: Truth): number => ({ 'data wait': t.wait, compute: t.compute, 'I/O outside compute': t.ioOnly })[slow![3]!] ?? t.wall - t.compute - t.wait - t.ioOnly;
    close(us(slow![4]!), fig(stalled.t), `printed slowest step ${slow![3]}`, stalled.slack);
    close(us(slow![5]!), median(steps.map((x) => fig(x.t))), `printed median ${slow![3]} beside it`, worst);
    // by the clock that figure is (within the tolerance) the one furthest above its median
    const excess = (f: (t: Truth) => number) => f(stalled.t) - median(steps.map((x) => f(x.t)));
    const best = Math.max(...[(t: Truth) => t.wait, (t: Truth) => t.compute, (t: Truth) => t.ioOnly, (t: Truth) => t.wall - t.compute - t.wait - t.ioOnly].map(excess));
    expect(excess(fig), `${slow![3]} furthest above its median`).toBeGreaterThanOrEqual(best - 2 * (TOLERANCE_US + stalled.slack + worst));
    // the epoch rows: wall, compute and data wait with their shares, and the verdict
    for (const e of rec.epochs) {
      const t = truth(rec, e);
      const row = new RegExp(`^epoch ${e.epoch}\\s+${D}\\s+${D}\\s+\\d+%\\s+${D}\\s+\\d+%.*\\s(\\S+-bound|idle): (\\d+) %`, 'm').exec(text);
      expect(row, text).not.toBeNull();
      close(us(row![1]!), t.wall, `printed epoch ${e.epoch} wall`, slack(e));
      close(us(row![2]!), t.compute, `printed epoch ${e.epoch} compute`, slack(e));
      close(us(row![3]!), t.wait, `printed epoch ${e.epoch} data wait`, slack(e));
      expect([...verdictsAllowed(t, TOLERANCE_US + slack(e)).keys()]).toContain(row![4]);
    }
    // one thread, whatever lanes it used
    expect(text).toMatch(/^\s*\d+\s+program\.mjs \(\d+\)\s+\S+\s+1\s+\d+\s+\d+\s/m);
    // the bytes it read (4 MiB a read), in the first line and the file table: its reads and the open and close
    const mib = `${rec.bytes / 2 ** 20} MiB`;
    expect(text).toMatch(new RegExp(`  read ${mib}  written 0 B$`, 'm'));
    const fileRow = new RegExp(`^\\S*shard\\.bin\\s+${rec.preads + 2}\\s+${mib}\\s+.*\\s${D}$`, 'm').exec(text);
    expect(fileRow, text).not.toBeNull();
    const readSum = rec.reads.reduce((a, { o: [b, e] }) => a + e - b, 0);
    close(us(fileRow![1]!), readSum, 'printed I/O time of the file', allSlack);
    // by name: the reads, and the loader's waits with the longest the stalled one
    const pread = new RegExp(`^POSIX\\s+pread\\s+${rec.preads}\\s+${D}`, 'm').exec(text);
    expect(pread, text).not.toBeNull();
    close(us(pread![1]!), readSum, 'printed pread busy', allSlack);
    const fetch = new RegExp(`^dataloader\\s+fetch\\.iter\\s+${rec.waits.length}\\s+${D}\\s+${D}\\s+${D}\\s+${D}\\s+${D}\\s+${D}\\s+${D}$`, 'm').exec(text);
    expect(fetch, text).not.toBeNull();
    close(us(fetch![1]!), len(clip(outer(rec.waits), span(ALL))), 'printed fetch.iter busy', allSlack);
    const stalledWait = rec.waits.map(({ o: [b, e] }) => e - b).reduce((a, b) => Math.max(a, b), 0);
    close(us(fetch![7]!), stalledWait, 'printed longest fetch.iter', stalled.slack);

    // --by step: one row per step, each as the clock has it
    const byStep = spawnSync(process.execPath, [cli, 'summary', '--by', 'step', trace], { encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' } }).stdout;
    expect(byStep).toMatch(/^By step \(8 steps, from step-arg;/m);
    for (const x of steps) {
      const row = new RegExp(`^epoch ${x.epoch} step ${x.step}\\s+${D}\\s+${D}\\s+\\d+%\\s+${D}\\s+\\d+%`, 'm').exec(byStep);
      expect(row, byStep).not.toBeNull();
      close(us(row![1]!), x.t.wall, `printed epoch ${x.epoch} step ${x.step} wall`, x.slack);
      close(us(row![2]!), x.t.compute, `printed epoch ${x.epoch} step ${x.step} compute`, x.slack);
      close(us(row![3]!), x.t.wait, `printed epoch ${x.epoch} step ${x.step} data wait`, x.slack);
    }
  });
});
