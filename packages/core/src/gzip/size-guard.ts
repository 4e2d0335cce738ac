import type { EventColumns } from '../recording/columns.js';

/**
 * Measure the 32nd batch after a measurement, both ways: often enough to follow a workload that
 * changes, rare enough that encoding twice costs a few percent of the encoder's CPU. While the
 * verdict holds the interval doubles, up to MAX_INTERVAL: where zlib wins, the hand-written
 * encoder runs only on the measured batches, never warm, and each run costs far more per event.
 */
export const SAMPLE_EVERY = 32;
const MAX_INTERVAL = 1024;
/**
 * The hand-written encoder keeps the batches between measurements only when it was at least this
 * much smaller: on a near tie zlib takes them, since zlib's size is the promise.
 */
const KEEP_RATIO = 0.97;
/** Batches this short (a flush of metadata only, a thread's last events) tell nothing: never measured. */
const MIN_EVENTS = 64;
/** A profile figure drifts when it has more than doubled or halved, beyond these absolute slacks. */
const KINDS_SLACK = 8;
const TEXT_SLACK = 4;

/**
 * Whether a batch goes to the hand-written encoder or to zlib, so that the hand-written one never
 * costs a user bytes. Its size depends on the data: on lines that repeat a few kinds with changing
 * numbers it writes well under zlib -1's size, but with many kinds, unique short strings or random
 * numbers it writes more. So the first batch, one batch in SAMPLE_EVERY or fewer after it, and any
 * batch whose make-up (kinds, new text per event) differs much from the last measured one are
 * encoded both ways; the smaller output is written, and the winner takes the batches until the
 * next measurement.
 */
export class SizeGuard {
  private countdown = 0;
  private interval = SAMPLE_EVERY;
  private measuredOnce = false;
  private zlibAhead = false;
  // The profile of the last measured batch.
  private kinds = 0;
  private text = 0;
  /** Per kind: the last batch that used it (distinctKinds). */
  private seen = new Int32Array(64);
  private batch = 0;

  /** Whether zlib writes the batches that are not measured. */
  get preferZlib(): boolean {
    return this.zlibAhead;
  }

  /**
   * Whether this batch is to be encoded both ways. `newText`: characters of text the batch brings
   * that no earlier batch had (its metadata lines, newly interned strings).
   */
  due(cols: EventColumns, newText: number): boolean {
    if (cols.count < MIN_EVENTS) return false;
    const kinds = this.distinctKinds(cols);
    const text = newText / cols.count;
    const due = --this.countdown < 0 || drifted(kinds, this.kinds, KINDS_SLACK) || drifted(text, this.text, TEXT_SLACK);
    if (due) {
      this.kinds = kinds;
      this.text = text;
    }
    return due;
  }

  /** Whether the hand-written encoder keeps the batches with these sizes of its output and zlib's. */
  keeps(customBytes: number, zlibBytes: number): boolean {
    return customBytes <= KEEP_RATIO * zlibBytes;
  }

  /** The sizes of a batch measured both ways; returns whether the hand-written output is the one to write. */
  measured(customBytes: number, zlibBytes: number): boolean {
    const zlibAhead = !this.keeps(customBytes, zlibBytes);
    this.interval = this.measuredOnce && zlibAhead === this.zlibAhead ? Math.min(2 * this.interval, MAX_INTERVAL) : SAMPLE_EVERY;
    this.measuredOnce = true;
    this.zlibAhead = zlibAhead;
    this.countdown = this.interval - 1;
    return customBytes <= zlibBytes;
  }

  private distinctKinds(cols: EventColumns): number {
    const b = ++this.batch;
    let n = 0;
    for (let i = 0; i < cols.count; i++) {
      const k = cols.kind[i]!;
      if (k >= this.seen.length) {
        const more = new Int32Array(Math.max(2 * this.seen.length, k + 1));
        more.set(this.seen);
        this.seen = more;
      }
      if (this.seen[k] !== b) {
        this.seen[k] = b;
        n++;
      }
    }
    return n;
  }
}

function drifted(now: number, then: number, slack: number): boolean {
  return now > 2 * then + slack || then > 2 * now + slack;
}
