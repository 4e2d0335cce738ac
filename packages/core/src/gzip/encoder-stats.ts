/**
 * How the batches of a process were written, reported in the `end` event's args: every encoder of
 * the process (the writer thread's, each traced thread's own) counts into one SharedArrayBuffer.
 */
export interface EncoderCounts {
  /** Batches written as gzip members (by zlib; on worker threads by js-gzip.ts). */
  readonly zlib: number;
  /** Batches written uncompressed (DFTRACER_TRACE_COMPRESSION=0). */
  readonly plain: number;
}

export type EncoderCount = keyof EncoderCounts;

const SLOTS: readonly EncoderCount[] = ['zlib', 'plain'];

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
