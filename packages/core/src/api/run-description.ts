import type { ArgValue, DFTracerConfig } from '../types.js';

/**
 * What the `end` event says about the run, as upstream's 2.2 `end` does: `cfg` (the effective
 * settings), `used` (the layers and integrations that produced events) and `app` (user metadata
 * from `setAppMetadata`). Nested objects in args: Perfetto, our analyzer and dftracer-utils read them.
 */

type CfgEntry<K extends keyof DFTracerConfig> = (v: DFTracerConfig[K]) => Record<string, ArgValue>;

/**
 * Each config field under upstream's ConfigurationManager name where one exists (`metadata`,
 * `io`/`posix`, `tids`, `trace_all_files`, `aggregation_enable`, ...), else snake case of ours.
 * Keyed by every field, so a new setting does not compile until it says how it is written.
 */
const CFG: { readonly [K in keyof DFTracerConfig]-?: CfgEntry<K> } = {
  enable: (v) => ({ enable: v }),
  logFile: (v) => ({ log_file: v }),
  dataDirs: (v) => ({ data_dirs: v.join(':') }),
  traceAll: (v) => ({ trace_all_files: v }),
  incMetadata: (v) => ({ metadata: v }),
  disableIo: (v) => ({ io: !v, posix: !v }),
  compression: (v) => ({ compression: v }),
  compressionLevel: (v) => ({ compression_level: v }),
  gzipEncoder: (v) => ({ gzip_encoder: v }),
  writeBufferSize: (v) => ({ write_buffer_size: v }),
  bindSignals: (v) => ({ bind_signals: v }),
  logLevel: (v) => ({ log_level: v }),
  disableTids: (v) => ({ tids: !v }),
  writerThread: (v) => ({ writer_thread: v }),
  countersIntervalMs: (v) => ({ counters_interval_ms: v }),
  enableAggregation: (v) => ({ aggregation_enable: v, aggregation_type: 'FULL' }),
  traceIntervalMs: (v) => ({ trace_interval_ms: v }),
};

/** The `end` event's `cfg`: every effective setting, upstream's names first where they exist. */
export function endConfig(config: DFTracerConfig): Record<string, ArgValue> {
  const out: Record<string, ArgValue> = { time_metric: 'US' };
  for (const k of Object.keys(CFG) as (keyof DFTracerConfig)[]) Object.assign(out, (CFG[k] as CfgEntry<typeof k>)(config[k]));
  return out;
}

/** The `end` event's `cfg`, `used` (sorted, so runs compare) and `app`. */
export function runDescription(config: DFTracerConfig, used: Iterable<string>, app: Readonly<Record<string, ArgValue>>): Record<string, ArgValue> {
  return { cfg: endConfig(config), used: [...new Set(used)].sort(), app: { ...app } };
}
