/**
 * How the batches of a process were encoded, reported in the `end` event's args: every encoder of
 * the process (the writer thread's, each traced thread's own) counts into one SharedArrayBuffer.
 */
export interface EncoderCounts {
  /** Batches written by the hand-written encoder. */
  readonly custom: number;
  /** Batches of text through a general deflate (zlib; on worker threads js-gzip.ts), chosen by the size guard, the level, DFTRACER_GZIP_ENCODER, or after an error. */
  readonly zlib: number;
  /** Batches written uncompressed (DFTRACER_TRACE_COMPRESSION=0). */
  readonly plain: number;
  /** Batches the size guard encoded both ways to compare. */
  readonly sampled: number;
  /** Batches the hand-written encoder failed on (each then written by zlib). */
  readonly fallbacks: number;
}

export type EncoderCount = keyof EncoderCounts;

const SLOTS: readonly EncoderCount[] = ['custom', 'zlib', 'plain', 'sampled', 'fallbacks'];

/** Bytes of the shared counters (TraceFile makes them with the file). */
export const ENCODER_STATS_BYTES = 4 * SLOTS.length;

export class EncoderStats {
  private readonly slots: Int32Array;

  /** `sab`: the process's shared counters; a private set when omitted (tests, benches). */
  constructor(sab: SharedArrayBuffer = new SharedArrayBuffer(ENCODER_STATS_BYTES)) {
    this.slots = new Int32Array(sab, 0, SLOTS.length);
  }

  add(what: EncoderCount): void {
    Atomics.add(this.slots, SLOTS.indexOf(what), 1);
  }

  counts(): EncoderCounts {
    const c = {} as Record<EncoderCount, number>;
    SLOTS.forEach((k, i) => (c[k] = Atomics.load(this.slots, i)));
    return c;
  }
}
