import { resolve } from 'node:path';
import type { DFTracerConfig, GzipEncoder, LogLevel } from '../types.js';
import { dataDirs, type DataDirs } from './data-dirs.js';
import { bool, int, oneOf, text, type Kind } from './kinds.js';

/** Options accepted by `initializeLog`; each overrides its DFTRACER_* variable (see SETTINGS). */
export interface ConfigOptions {
  enable?: boolean;
  logFile?: string;
  /** `:`-separated prefixes, an array of prefixes, or `all`. */
  dataDir?: string | readonly string[];
  incMetadata?: boolean;
  disableIo?: boolean;
  compression?: boolean;
  compressionLevel?: number;
  gzipEncoder?: GzipEncoder;
  writeBufferSize?: number;
  bindSignals?: boolean;
  logLevel?: LogLevel;
  disableTids?: boolean;
  writerThread?: boolean;
  /** Counter sampling interval in ms (DFTRACER_COUNTERS_INTERVAL_MS); 0 turns counters off. */
  countersIntervalMs?: number;
  /** Fold high-rate events into one record per interval (DFTRACER_ENABLE_AGGREGATION). */
  enableAggregation?: boolean;
  /** The aggregation interval in ms (DFTRACER_TRACE_INTERVAL_MS). */
  traceIntervalMs?: number;
}

/** One setting: an option, its variable, how its value is read, its default and what children inherit. */
export interface Setting<T> {
  readonly variable: string;
  readonly kind: Kind<T>;
  readonly default: T;
  /** The README's words for it. */
  readonly meaning: string;
  /** The default as the README shows it. */
  readonly shownDefault: string;
  /**
   * The variable's text that gives a child process this value (default: the kind's text);
   * undefined leaves the child's own.
   */
  readonly inherit?: (value: T) => string | undefined;
}

/** The value a setting resolves to: the config field of the same name, or fields it spreads into. */
type ValueOf<K extends keyof ConfigOptions> = K extends keyof DFTracerConfig ? DFTracerConfig[K] : K extends 'dataDir' ? DataDirs : never;

export type Settings = { readonly [K in keyof ConfigOptions]-?: Setting<ValueOf<K>> };

export const DEFAULT_WRITE_BUFFER_SIZE = 1 << 20;
/** One sample per 100 ms costs far below measurement noise (`pnpm bench`: countersPaired). */
export const DEFAULT_COUNTERS_INTERVAL_MS = 100;
/** Upstream's default aggregation interval. */
export const DEFAULT_TRACE_INTERVAL_MS = 1000;

/**
 * The configuration, declared once: options, variables, errors, children's environment and the
 * README's options table all come from here (README order). A new setting is one entry here, one
 * field in ConfigOptions and one in DFTracerConfig; the compiler checks the three agree.
 */
export const SETTINGS: Settings = {
  enable: { variable: 'DFTRACER_ENABLE', kind: bool, default: false, shownDefault: 'off', meaning: '`1/true/on/yes` traces; otherwise nothing is traced and no file is made', inherit: () => '1' },
  logFile: {
    variable: 'DFTRACER_LOG_FILE', kind: text, default: './trace', shownDefault: '`./trace`', meaning: 'prefix of the file: `<prefix>-<hash of exec-host-pid>-app.pfw.gz`',
    // Absolute, so a child started in another directory writes next to its parent's file.
    inherit: (v) => resolve(v),
  },
  dataDir: { variable: 'DFTRACER_DATA_DIR', kind: dataDirs, default: { dataDirs: [], traceAll: true }, shownDefault: '`all`', meaning: '`:`-separated directories (or an array) whose files are traced, by path segment; `all`' },
  incMetadata: { variable: 'DFTRACER_INC_METADATA', kind: bool, default: true, shownDefault: 'on', meaning: 'write `args` (hashes, `level`, `p_idx`, sizes, user args)' },
  disableIo: { variable: 'DFTRACER_DISABLE_IO', kind: bool, default: false, shownDefault: 'off', meaning: 'do not trace `node:fs`' },
  compression: { variable: 'DFTRACER_TRACE_COMPRESSION', kind: bool, default: true, shownDefault: 'on', meaning: 'gzip the file, one member per flush' },
  compressionLevel: { variable: 'DFTRACER_COMPRESSION_LEVEL', kind: int(1, 9), default: 1, shownDefault: '1', meaning: "1–9, zlib's level; see [Compression](#compression)" },
  gzipEncoder: { variable: 'DFTRACER_GZIP_ENCODER', kind: oneOf<GzipEncoder>(['zlib'], (s) => s.toLowerCase()), default: 'zlib', shownDefault: '`zlib`', meaning: '`zlib`, the one encoder (`auto` and `custom` are gone); see [Compression](#compression)' },
  writeBufferSize: { variable: 'DFTRACER_WRITE_BUFFER_SIZE', kind: int(1, 1 << 30), default: DEFAULT_WRITE_BUFFER_SIZE, shownDefault: String(DEFAULT_WRITE_BUFFER_SIZE), meaning: 'bytes of events buffered before a flush' },
  bindSignals: { variable: 'DFTRACER_BIND_SIGNALS', kind: bool, default: false, shownDefault: 'off', meaning: 'on SIGINT/SIGTERM/SIGHUP flush and close, then die by the signal' },
  logLevel: { variable: 'DFTRACER_LOG_LEVEL', kind: oneOf<LogLevel>(['ERROR', 'WARN', 'INFO', 'DEBUG'], (s) => s.toUpperCase(), { WARNING: 'WARN' }), default: 'WARN', shownDefault: '`WARN`', meaning: "the tracer's own messages on stderr: `ERROR`, `WARN`, `INFO`, `DEBUG`" },
  disableTids: { variable: 'DFTRACER_DISABLE_TIDS', kind: bool, default: false, shownDefault: 'off', meaning: 'write `tid` 0 (async lanes keep small distinct tids)' },
  writerThread: { variable: 'DFTRACER_WRITER_THREAD', kind: bool, default: true, shownDefault: 'on', meaning: 'format and write on a writer thread; off: on the traced thread' },
  countersIntervalMs: { variable: 'DFTRACER_COUNTERS_INTERVAL_MS', kind: int(0, 3_600_000), default: DEFAULT_COUNTERS_INTERVAL_MS, shownDefault: String(DEFAULT_COUNTERS_INTERVAL_MS), meaning: 'ms between counter samples (`"ph":"C"` records: memory, CPU, event loop, GC, I/O, tfjs tensors); `0`: none' },
  enableAggregation: { variable: 'DFTRACER_ENABLE_AGGREGATION', kind: bool, default: false, shownDefault: 'off', meaning: 'fold fs I/O and kernel events into one record per name, thread, file and interval; see [Aggregation](#aggregation)' },
  traceIntervalMs: { variable: 'DFTRACER_TRACE_INTERVAL_MS', kind: int(1, 3_600_000), default: DEFAULT_TRACE_INTERVAL_MS, shownDefault: String(DEFAULT_TRACE_INTERVAL_MS), meaning: 'the aggregation interval in ms' },
};

export type SettingName = keyof ConfigOptions;

/** The settings in declaration order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

// Every field of DFTracerConfig comes from a setting (the reverse is checked by `Settings` itself).
type Covered = (keyof ConfigOptions & keyof DFTracerConfig) | keyof DataDirs;
type Uncovered = Exclude<keyof DFTracerConfig, Covered>;
const everyFieldDeclared: [Uncovered] extends [never] ? true : Uncovered = true;
void everyFieldDeclared;
