/**
 * The contract between the core and every plugin (fs, ai, dynamo, profiler).
 * Kept small and stable: integrations depend on these types only.
 */

/** A value that can be written as an event argument. Non-finite numbers, bigints and others are
 * written with the documented replacements (README, "Values the JSON format cannot hold"). */
export type ArgValue = string | number | boolean | bigint | null | undefined | readonly unknown[] | object;

export type Args = Readonly<Record<string, ArgValue>>;

/** The effective configuration of a tracer (DFTRACER_* variables merged with code options). */
export interface DFTracerConfig {
  /** DFTRACER_ENABLE: nothing is traced and no file is created unless true. */
  readonly enable: boolean;
  /** DFTRACER_LOG_FILE or the `logFile` option: the prefix of the trace file name. */
  readonly logFile: string;
  /** DFTRACER_DATA_DIR: absolute path prefixes whose files are traced; empty when `traceAll`. */
  readonly dataDirs: readonly string[];
  /** DFTRACER_DATA_DIR=all. */
  readonly traceAll: boolean;
  /** DFTRACER_INC_METADATA: write `args` (hashes, level, p_idx, user args). */
  readonly incMetadata: boolean;
  /** DFTRACER_DISABLE_IO: do not install the fs I/O plugin. */
  readonly disableIo: boolean;
  /** DFTRACER_TRACE_COMPRESSION: gzip output, one member per flush. */
  readonly compression: boolean;
  /** DFTRACER_COMPRESSION_LEVEL, 1–9 (default 1): zlib's level. */
  readonly compressionLevel: number;
  /** DFTRACER_GZIP_ENCODER: which gzip encoder writes the batches (see GzipEncoder). */
  readonly gzipEncoder: GzipEncoder;
  /** DFTRACER_WRITE_BUFFER_SIZE: bytes of formatted events held before a flush. */
  readonly writeBufferSize: number;
  /** DFTRACER_BIND_SIGNALS: flush on SIGINT/SIGTERM and re-raise. */
  readonly bindSignals: boolean;
  /** DFTRACER_LOG_LEVEL: the tracer's own messages on stderr. */
  readonly logLevel: LogLevel;
  /** DFTRACER_DISABLE_TIDS: write tid 0 (lanes keep small distinct tids). */
  readonly disableTids: boolean;
  /** DFTRACER_WRITER_THREAD: format, gzip and write on a writer thread (off: on the traced thread). */
  readonly writerThread: boolean;
  /** DFTRACER_COUNTERS_INTERVAL_MS: ms between counter samples (`"ph":"C"` records); 0: none. */
  readonly countersIntervalMs: number;
  /** DFTRACER_ENABLE_AGGREGATION: fold high-rate events (fs I/O, kernels) into one record per interval. */
  readonly enableAggregation: boolean;
  /** DFTRACER_TRACE_INTERVAL_MS: the aggregation interval in ms. */
  readonly traceIntervalMs: number;
}

export type LogLevel = 'ERROR' | 'WARN' | 'INFO' | 'DEBUG';

/**
 * `zlib`, the one encoder: zlib on every batch, at DFTRACER_COMPRESSION_LEVEL. The hand-written
 * DEFLATE encoder (`auto`, `custom`) is gone: on genuine traces it saved no bytes for more CPU.
 */
export type GzipEncoder = 'zlib';

/**
 * An open span: its id and nesting position are fixed when it is entered; its event is written when
 * it is exited. Obtain one from `Tracer.enter()`.
 */
export interface Span {
  readonly id: number;
  readonly level: number;
  /** The parent's id, -1 at the top. */
  readonly parentId: number;
  /** Start time, integer µs since the epoch. */
  readonly start: number;
  /** Whether the span may outlive the current synchronous stretch (it then gets its own lane tid). */
  readonly async: boolean;
}

export interface EnterOptions {
  /**
   * The span crosses ticks (an async function, an fs callback or promise operation). Async spans
   * are written on a lane tid of their own so overlapping operations never overlap on one track.
   */
  readonly async?: boolean;
  /** Start time to record instead of now (µs). */
  readonly start?: number;
}

/** What every plugin and user API writes through. One per thread; all threads share one file. */
export interface Tracer {
  readonly config: DFTracerConfig;
  /** Integer µs since the epoch, from a monotonic clock anchored once. */
  now(): number;
  /**
   * Opens a span under the current context. Sync spans become the current context until exited;
   * async spans become current only inside `within(span, fn)`.
   */
  enter(options?: EnterOptions): Span;
  /**
   * Closes a span and writes its complete event (ts = span.start, dur = end - start); `end`
   * defaults to now (µs) and lets a caller that measured the end itself record it exactly.
   */
  exit(span: Span, name: string, cat: string, args?: Args, end?: number): void;
  /**
   * `exit` for a name made for one event or a few (`ProfilerStep#1234`): the name is not kept for
   * the session, so millions of distinct names do not grow memory. The event written is the same.
   */
  exitTransient(span: Span, name: string, cat: string, args?: Args, end?: number): void;
  /** Runs fn with `span` as the current context, across awaits (AsyncLocalStorage). */
  within<T>(span: Span, fn: () => T): T;
  /** Writes a complete event measured by the caller, as a child of the current context. */
  emit(name: string, cat: string, ts: number, dur: number, args?: Args): void;
  /**
   * Fixes an event's id and place under the current context now, for an event whose fields arrive
   * later (a GPU kernel's device time): write it with `exit(span, …)` whenever they do. The span
   * never becomes the current context.
   */
  reserve(start?: number): Span;
  /** A track of its own (a tid named by a `thread_name` record), such as a GPU queue; one tid per name. */
  track(name: string): number;
  /** Writes a complete event at the top of a track from `track()` (level 1, no parent). */
  emitOn(track: number, name: string, cat: string, ts: number, dur: number, args?: Args): void;
  /**
   * Interns an event's name, category and arg keys (at most 4, distinct) once, for a call site that emits
   * many events of that shape with `emitShaped`: no args object per event, no key lookups.
   */
  shape(name: string, cat: string, keys: readonly string[]): EventShape;
  /** `emit` for a prepared shape: the arg values in the order of its keys. */
  emitShaped(shape: EventShape, ts: number, dur: number, v0?: ArgValue, v1?: ArgValue, v2?: ArgValue, v3?: ArgValue): void;
  /** H(path) for a file, writing its `FH` metadata record the first time. */
  hashFile(path: string): string;
  /** H(s) for a string, writing its `SH` metadata record the first time. */
  hashString(s: string): string;
  /** A `CM` metadata record (user key/value). */
  metadata(key: string, value: unknown): void;
  /** Whether I/O on this path is traced (DFTRACER_DATA_DIR, never the trace file itself). */
  isTraced(path: string): boolean;
  /** The tracer's own diagnostics on stderr, filtered by DFTRACER_LOG_LEVEL. */
  log(level: LogLevel, message: string): void;
  /** `log('WARN', message)` the first time `key` is said in this trace (any thread). */
  warnOnce(key: string, message: string): void;
  /**
   * Names a layer or integration that produced events (pydftracer's `mark_used`): listed in the
   * `end` event's `used` arg. Cheap to call again with the same name; call it when events start.
   */
  markUsed(name: string): void;
}

/** An event shape of one Tracer (`Tracer.shape`): meaningful only to the tracer that made it. */
export type EventShape = number & { readonly __eventShape: unique symbol };

/** How a plugin unhooks itself at finalize. */
export type Teardown = () => void;

export interface Plugin {
  /** Listed in the end event's `plugins` arg, e.g. "posix", "ai", "dynamo", "PP". */
  readonly name: string;
  setup(tracer: Tracer): Teardown | void;
}
