/**
 * One record of a DFTracer trace. Complete events (`ph: 'X'`) carry ts/dur; metadata records
 * (`ph: 'M'`: FH, HH, SH, CM, process and thread names) carry neither. Typed for the complete
 * event, which is what most assertions read.
 */
export interface TraceEvent {
  id: number;
  name: string;
  cat: string;
  pid: number;
  tid: number;
  /** Start, µs since the epoch (complete events only). */
  ts: number;
  /** Duration, µs (complete events only). */
  dur: number;
  /** X complete event, M metadata, C counter sample (ts, numeric args, no dur). */
  ph: 'X' | 'M' | 'C';
  // `any`: tests read args of many shapes (level, p_idx, fhash, JSON-encoded values) without casts.
  args: Record<string, any>;
}

/** A trace file read back. */
export interface Trace {
  /** Every line of the file, `[` and `]` included. */
  lines: string[];
  /** Every record, in file order. */
  events: TraceEvent[];
  /** Complete events (ph X), the tracer's own start/end included. */
  complete: TraceEvent[];
  /** Metadata records (ph M). */
  meta: TraceEvent[];
  /** Counter samples (ph C), in file order. */
  counters: TraceEvent[];
  /** Complete events of the traced program: the tracer's own (cat `dftracer`: start, end) left out. */
  program: TraceEvent[];
  /** Complete events by id. */
  byId: Map<number, TraceEvent>;
}
