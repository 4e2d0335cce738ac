/**
 * Ground truth for the analyzer from a traced program's own clock: the program notes
 * `performance.now()` around each phase it runs; tests compare the summary with these notes.
 */
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { summarize, validateFiles, type Summary } from '@dftracer/analyzer';
import { readTrace, tempDir, type Trace } from '@dftracer/testing';
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

/** µs between two performance.now() readings. */
export const us = (a: number, b: number): number => (b - a) * 1000;

/** One step as the program saw it (µs): its window, its compute and its wait for data. */
export interface ClockStep {
  epoch: number;
  step: number;
  /** The previous step's end, or its epoch's start. */
  start: number;
  end: number;
  compute_us: number;
  wait_us: number;
}

export interface ClockEpoch {
  epoch: number;
  start: number;
  end: number;
  compute_us: number;
  wait_us: number;
}

/** What the program noted, per epoch and per step. */
export class ProgramClock {
  readonly epochs: ClockEpoch[] = [];
  readonly steps: ClockStep[] = [];
  private last = 0;

  beginEpoch(epoch: number): void {
    this.last = performance.now();
    this.epochs.push({ epoch, start: this.last, end: 0, compute_us: 0, wait_us: 0 });
  }

  /** A step ends with its compute, `end` its last clock reading. */
  step(step: number, wait_us: number, compute_us: number, end: number): void {
    const e = this.epochs.at(-1)!;
    this.steps.push({ epoch: e.epoch, step, start: this.last, end, compute_us, wait_us });
    e.compute_us += compute_us;
    e.wait_us += wait_us;
    this.last = end;
  }

  endEpoch(): void {
    this.epochs.at(-1)!.end = performance.now();
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

/**
 * Runs of a timing test on a loaded machine: a thread descheduled between the program's clock
 * reading and the tracer's, inside one run, moves one figure by milliseconds. A wrong answer is
 * wrong in every run.
 */
export const RETRIES = 2;

/** Within `tol` µs (a millisecond unless said: the tracer's clock reads beside the program's). */
export function near(got: number, want: number, what: string, tol = 1000): void {
  expect(Math.abs(got - want), `${what}: ${got} µs, the program's clock says ${Math.round(want)} µs`).toBeLessThanOrEqual(tol);
}
