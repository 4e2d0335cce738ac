/**
 * Ground truth for the analyzer from a traced program's own clock: the program reads
 * `performance.now()` just outside and first and last inside each traced call, so every stamp of
 * the tracer lies in a bracket on the program's clock; tests compare the summary with interval
 * arithmetic over these readings, within a millisecond plus the brackets' parts in the window.
 * That holds under any load, with no retry.
 */
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { summarize, validateFiles, type Summary } from '@dftracer/analyzer';
import { readTrace, tempDir, type Trace, type TraceEvent } from '@dftracer/testing';
import { expect } from 'vitest';

/** Keeps the CPU busy for `ms` (a compute phase, or a loader that decodes). */
export function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const cell = new Int32Array(new SharedArrayBuffer(4));
/**
 * Blocks the thread for `ms` without using the CPU (a synchronous read waiting on a disk): on a
 * busy machine a wait stays the length asked, where a busy loop stretches when it is descheduled.
 */
export function sleepSync(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}

/** The program's clock in µs (the tracer stamps from performance.timeOrigin + performance.now()). */
export const now = (): number => performance.now() * 1000;

export type Interval = [number, number];
/** A traced call: the clock just before and after it (o), and first and last inside it (i; null where no program code runs inside). */
export interface Call {
  /** Its slot: what was called (forward, wait, io, ...). */
  n: string;
  o: Interval;
  i: Interval | null;
}
/** A window's start and end, each the bracket on the program's clock that the tracer's stamp lies in. */
export interface Win {
  s: Interval;
  e: Interval;
}
/** The whole run. */
export const ALL: Win = { s: [-Infinity, -Infinity], e: [Infinity, Infinity] };
/** A window on the program's clock: from the latest its start can be to the latest its end can be. */
export const span = (w: Win): Interval => [w.s[1], w.e[1]];
export const outer = (cs: Call[]): Interval[] => cs.map((c) => c.o);

/** Sorted, merged intervals of `xs` clipped to `w`. */
export function clip(xs: Interval[], w: Interval): Interval[] {
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
export const len = (xs: Interval[]): number => xs.reduce((a, [s, e]) => a + e - s, 0);
/** |a ∩ b| of two merged interval lists. */
export function overlap(a: Interval[], b: Interval[]): number {
  let t = 0;
  for (const [s, e] of a) for (const [u, v] of b) t += Math.max(0, Math.min(e, v) - Math.max(s, u));
  return t;
}

/**
 * What the clock cannot see in a window: each traced call's stamps lie between the program's
 * readings outside the call and inside it, and each window's ends in their brackets, so a figure
 * computed from the stamps differs from the clock's by at most the parts of those brackets inside
 * the window. They are the wrapper's few µs on an idle machine, and exactly the time the program
 * was held (preempted, collecting garbage) between a reading and a stamp on a loaded one.
 */
export function slack(win: Win, calls: Call[]): number {
  const w: Interval = [win.s[0], win.e[1]];
  const ends = win === ALL ? 0 : win.s[1] - win.s[0] + win.e[1] - win.e[0];
  const gaps = calls.flatMap((c): Interval[] => (c.i ? [[c.o[0], c.i[0]], [c.i[1], c.o[1]]] : [c.o]));
  return ends + gaps.reduce((t, g) => t + len(clip([g], w)), 0);
}

/** The tracer's clock reads beside the program's: a millisecond, plus the window's slack. */
export const TOLERANCE_US = 1000;
export function close(got: number, want: number, what: string, slackUs: number): void {
  expect(Math.abs(got - want), `${what}: analyzer ${got.toFixed(0)} µs, clock ${want.toFixed(0)} µs, held between a reading and a stamp ${slackUs.toFixed(0)} µs`).toBeLessThanOrEqual(TOLERANCE_US + slackUs);
}

/**
 * The premise of the tolerance, exactly: each traced call is one event of the trace between the
 * readings outside it that holds those inside it (a call with nothing inside, such as the loader's
 * last, empty `next`, at most one). `events` are the complete events; `origin` the program's
 * performance.timeOrigin (ms). The tracer floors its µs: 2 µs of play.
 */
export function checkCalls(events: TraceEvent[], origin: number, calls: Call[], matches: Record<string, (e: TraceEvent) => boolean>): void {
  const EPS = 2;
  const ev = events.map((e) => ({ e, s: e.ts - origin * 1000, end: e.ts + e.dur - origin * 1000 }));
  for (const c of calls) {
    const what = `${c.n} at ${c.o[0].toFixed(0)} µs`;
    const found = ev.filter((x) => matches[c.n]!(x.e) && x.s >= c.o[0] - EPS && x.end <= c.o[1] + EPS);
    expect(found, `${what}: one event between the readings outside it`).toHaveLength(1);
    if (c.i) {
      expect(found[0]!.s, `${what}: starts before the first reading inside`).toBeLessThanOrEqual(c.i[0] + EPS);
      expect(found[0]!.end, `${what}: ends after the last reading inside`).toBeGreaterThanOrEqual(c.i[1] - EPS);
    }
  }
}
/** A stamp `t` (µs on the program's clock) lies in its bracket, within the tracer's floor. */
export function within(t: number, b: Interval, what: string): void {
  const EPS = 2;
  expect(t >= b[0] - EPS && t <= b[1] + EPS, `${what}: ${t.toFixed(0)} µs in [${b[0].toFixed(0)}, ${b[1].toFixed(0)}]`).toBe(true);
}
/** Each window's stamps (its events, in order) lie in its brackets. */
export function checkWindows(events: TraceEvent[], origin: number, wins: Array<Win & { what: string }>): void {
  expect(events).toHaveLength(wins.length);
  wins.forEach((w, k) => {
    within(events[k]!.ts - origin * 1000, w.s, `${w.what} start`);
    within(events[k]!.ts + events[k]!.dur - origin * 1000, w.e, `${w.what} end`);
  });
}

/** What the clock says of a window: its wall, its compute, and its data wait outside compute. */
export interface ClockTruth {
  wall: number;
  compute: number;
  wait: number;
}

/**
 * What the program noted: every traced call bracketed (compute slots and the `wait` for a batch),
 * and the epochs and steps as windows. An epoch runs from its span's start to its end; a step from
 * the previous one's end (its epoch's start for the first) to its last compute event's end.
 */
export class ProgramClock {
  readonly calls: Call[] = [];
  readonly epochs: Array<{ epoch: number } & Win> = [];
  readonly steps: Array<{ epoch: number; step: number } & Win> = [];
  private readonly inner = new Map<string, Interval | null>();
  private mark = 0;
  private lastInside: number | null = null;
  private stepStart: Interval = [0, 0];

  constructor(private readonly computeSlots: string[] = ['forward']) {}

  /** `f`, reading the clock first and last inside it (for sync or async bodies): wrap it with the tracer's wrapper. */
  inside<A extends unknown[], R>(slot: string, f: (...a: A) => R): (...a: A) => R {
    return (...a: A): R => {
      const i0 = now();
      const r = f(...a);
      if (r instanceof Promise) return r.then((v) => (this.inner.set(slot, [i0, now()]), v)) as R;
      this.inner.set(slot, [i0, now()]);
      return r;
    };
  }
  /** Notes the first and last readings inside a call whose body is not one function (a loader's turn). */
  noteInside(slot: string, i: Interval): void {
    this.inner.set(slot, i);
  }
  /** The reading just before a traced call. */
  before(slot: string): number {
    this.inner.set(slot, null);
    return now();
  }
  /** The reading just after it: the call, recorded. */
  after(slot: string, o0: number): Call {
    const c: Call = { n: slot, o: [o0, now()], i: this.inner.get(slot) ?? null };
    this.calls.push(c);
    return c;
  }
  /** The last reading before an epoch span starts (before its loop, or the end of the previous body). */
  markBefore(): void {
    this.mark = now();
  }
  /** First reading in an epoch's body. */
  beginEpoch(epoch: number): void {
    const t = now();
    this.afterEpoch(t);
    this.epochs.push({ epoch, s: [this.mark, t], e: [0, 0] });
    this.stepStart = this.epochs.at(-1)!.s;
  }
  /** A step ends with its last compute call. */
  step(step: number, last: Call): void {
    const end: Interval = [last.i![1], last.o[1]];
    this.steps.push({ epoch: this.epochs.at(-1)!.epoch, step, s: this.stepStart, e: end });
    this.stepStart = end;
  }
  /** Last reading in an epoch's body. */
  endEpoch(): void {
    this.lastInside = this.mark = now();
  }
  /** First reading after an epoch's span ends (after its run, the next body's first, or after the loop). */
  afterEpoch(t = now()): void {
    if (this.lastInside === null) return;
    this.epochs.at(-1)!.e = [this.lastInside, t];
    this.lastInside = null;
  }

  truth(win: Win): ClockTruth {
    const w = span(win);
    const comp = clip(outer(this.calls.filter((c) => this.computeSlots.includes(c.n))), w);
    const waits = clip(outer(this.calls.filter((c) => c.n === 'wait')), w);
    return { wall: w[1] - w[0], compute: len(comp), wait: len(waits) - overlap(waits, comp) };
  }
  slack(win: Win): number {
    return slack(win, this.calls);
  }
  /** Every figure of a window against the clock. */
  check(got: { wall_us: number; compute_us: number; wait_us: number }, win: Win, what: string): void {
    const t = this.truth(win);
    const sl = this.slack(win);
    close(got.wall_us, t.wall, `${what} wall`, sl);
    close(got.compute_us, t.compute, `${what} compute`, sl);
    close(got.wait_us, t.wait, `${what} data wait`, sl);
  }
}

/** Runs `program` traced into a fresh file; returns the file, its events and the summary. */
export async function traceAndSummarize(name: string, program: () => void | Promise<void>): Promise<{ file: string; trace: Trace; summary: Summary }> {
  const dir = tempDir();
  const file = initializeLog({ enable: true, logFile: join(dir, name), compression: false, disableIo: true }).file!;
  try {
    await program();
  } finally {
    finalize();
  }
  const v = await validateFiles([file]);
  expect(v.problems, JSON.stringify(v.files[0]?.problems)).toBe(0);
  return { file, trace: readTrace(file), summary: await summarize([file]) };
}
