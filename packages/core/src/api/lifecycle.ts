import { hostname as osHostname } from 'node:os';
import { getEnvironmentData, isMainThread, setEnvironmentData, threadId } from 'node:worker_threads';
import { builtinPlugins } from './builtin-plugins.js';
import { activeTracer, coreState } from './core-state.js';
import { installHooks } from './process-hooks.js';
import { execName, traceFilePath, writeHeader } from './trace-header.js';
import { exportToChildren, restoreChildEnv } from './children.js';
import { nowUs } from '../recording/clock.js';
import { ConfigError, resolveConfig } from '../config/resolve.js';
import { SETTING_NAMES, type ConfigOptions } from '../config/settings.js';
import { configDifferences } from '../config/differences.js';
import { checkOptionKeys } from '../plugin/option-keys.js';
import { warnOnce } from '../plugin/warn-once.js';
import { writeDiagnostic } from '../writer/diagnostics.js';
import { runDescription } from './run-description.js';
import { guardCloses } from '../fs/close-guard.js';
import { guardTraceFd, unguardTraceFd } from '../writer/trace-fd-guard.js';
import { TraceFile, type SharedFile } from '../writer/trace-file.js';
import { ThreadTracer } from '../recording/tracer.js';
import type { EncoderCounts } from '../gzip/index.js';
import type { Args, DFTracerConfig, Plugin } from '../types.js';


export interface InitOptions extends ConfigOptions {
  /** Accepted for pydftracer compatibility; events always carry the real pid. */
  processId?: number;
  /** Plugins installed besides the built-in fs tracer. */
  plugins?: readonly Plugin[];
}

/** What `initializeLog` returns: a handle that works the same whether tracing is on or off. */
export interface DFTracerLogger {
  /** The trace file, or null when tracing is off. */
  readonly file: string | null;
  readonly enabled: boolean;
  finalize(): void;
  getTime(): number;
  logMetadata(key: string, value: unknown): void;
}


/** Where worker threads find the main thread's file and settings (worker_threads environment data). */
const SHARED_KEY = 'dftracer.core.shared';

interface SharedInit {
  readonly shared: SharedFile;
  readonly config: DFTracerConfig;
  readonly hostname: string;
}


const DISABLED_LOGGER: DFTracerLogger = Object.freeze({
  file: null,
  enabled: false,
  finalize() {},
  getTime: () => 0,
  logMetadata() {},
});

function loggerFor(t: ThreadTracer): DFTracerLogger {
  return {
    file: t.file.shared.path,
    enabled: true,
    finalize,
    getTime,
    logMetadata,
  };
}

const INIT_KEYS: readonly string[] = [...SETTING_NAMES, 'processId', 'plugins'];

function normaliseArgs(a: InitOptions | string | undefined, dataDir?: string | null, processId?: number): InitOptions {
  if (a === undefined || a === null) return dataDir != null ? { dataDir } : {};
  if (typeof a === 'string') {
    const o: InitOptions = { logFile: a };
    if (dataDir != null) o.dataDir = dataDir;
    if (processId !== undefined) o.processId = processId;
    return o;
  }
  if (typeof a !== 'object') throw new TypeError(`initializeLog: the first argument must be an options object or a log file path; got ${typeof a}`);
  checkOptionKeys('initializeLog', a, INIT_KEYS);
  return a;
}

function warnIgnored(options: InitOptions, running: DFTracerConfig): void {
  const differ = configDifferences(options, running);
  if (options.plugins !== undefined && options.plugins.length > 0) differ.push(`plugins (${options.plugins.map((p) => p.name).join(', ')}: install them with addPlugin)`);
  if (differ.length > 0) warnOnce(`initializeLog again: ${differ.join('; ')}`, `initializeLog: tracing already runs; this call's options were ignored: ${differ.join('; ')}`);
}

/**
 * Starts tracing this process (or joins the process's trace from a worker thread). Idempotent:
 * a second call returns the running logger. With DFTRACER_ENABLE off it creates nothing.
 *
 * `initializeLog({ logFile, dataDir, plugins, ... })` or, as in Python,
 * `initializeLog(logFile, dataDir, processId)`.
 */
export function initializeLog(options?: InitOptions): DFTracerLogger;
export function initializeLog(logFile?: string | null, dataDir?: string | null, processId?: number): DFTracerLogger;
export function initializeLog(a?: InitOptions | string | null, dataDir?: string | null, processId?: number): DFTracerLogger {
  const state = coreState();
  const options = normaliseArgs(a ?? undefined, dataDir, processId);
  // Running (or stopped by a write error, which only finalize ends): the same logger, and a word
  // about the options this call asked for and did not get.
  if (state.tracer !== null && state.live) {
    if (state.config !== null) warnIgnored(options, state.config);
    return loggerFor(state.tracer);
  }
  const inherited = isMainThread ? undefined : (getEnvironmentData(SHARED_KEY) as SharedInit | undefined);

  let config: DFTracerConfig;
  try {
    config = inherited !== undefined && Object.keys(options).length === 0 ? inherited.config : resolveConfig(options);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    // Options passed in code are the caller's bug and throw; a bad variable must not break the program.
    if (e.origin === 'option') throw e;
    writeDiagnostic(`dftracer: ${e.message}; tracing is off\n`);
    return DISABLED_LOGGER;
  }
  state.config = config;
  if (!config.enable) return DISABLED_LOGGER;

  // Writing failed for the whole process (disk full...): a new thread does not start another file.
  if (inherited !== undefined && TraceFile.failedFor(inherited.shared)) return DISABLED_LOGGER;
  const pid = process.pid;
  const hostname = inherited?.hostname ?? osHostname();
  let tracer: ThreadTracer;
  try {
    if (inherited !== undefined && TraceFile.joinable(inherited.shared)) {
      state.ownsFile = false;
      const file = TraceFile.join(inherited.shared);
      tracer = new ThreadTracer(config, file, { pid, tid: config.disableTids ? 0 : pid * 1000 + threadId, threadName: `worker ${threadId}`, hostname });
      tracer.announceThread();
    } else {
      // Not joinable because writing failed a moment ago (the flags only ever get set): no new file.
      if (inherited !== undefined && TraceFile.failedFor(inherited.shared)) return DISABLED_LOGGER;
      state.ownsFile = true;
      state.initCount++;
      let identity = `${execName()}-${hostname}-${pid}`;
      if (!isMainThread) identity += `-t${threadId}`;
      if (state.initCount > 1) identity += `-${state.initCount}`;
      const path = traceFilePath(config.logFile, config.compression, identity);
      const file = TraceFile.create(path, { compression: config.compression, level: config.compressionLevel, gzipEncoder: config.gzipEncoder });
      tracer = new ThreadTracer(config, file, { pid, tid: config.disableTids ? 0 : isMainThread ? pid : pid * 1000 + threadId, threadName: isMainThread ? 'main' : `worker ${threadId}`, hostname });
      writeHeader(tracer, hostname);
      if (isMainThread) setEnvironmentData(SHARED_KEY, { shared: file.shared, config, hostname } satisfies SharedInit);
    }
  } catch (e) {
    writeDiagnostic(`dftracer: cannot create the trace file under ${JSON.stringify(config.logFile)}: ${(e as Error).message}; tracing is off\n`);
    return DISABLED_LOGGER;
  }

  const file = tracer.file;
  guardTraceFd(file.shared.fd, () => file.surrender());
  state.tracer = tracer;
  state.live = true;
  state.droppedReported = 0;
  state.teardowns = [];
  state.plugins = [];
  // Whatever plugins wrap node:fs: a close of the trace descriptor must surrender it first.
  state.teardowns.push(guardCloses());
  installPlugins(tracer, [...builtinPlugins(config), ...(options.plugins ?? [])]);
  installHooks(state, finalize);
  tracer.flush();
  if (isMainThread && state.ownsFile) {
    tracer.startWriter();
    // child_process and cluster children inherit the resolved settings and write their own files.
    exportToChildren(config);
  }
  // Counters (counters/): the program's thread samples its own figures; a worker's heap and loop are its own, not the program's.
  if (isMainThread) {
    tracer.startCounters();
    state.teardowns.push(() => tracer.stopCounters());
  }
  return loggerFor(tracer);
}


function installPlugins(t: ThreadTracer, plugins: readonly Plugin[]): void {
  const state = coreState();
  for (const p of plugins) {
    try {
      const teardown = p.setup(t);
      if (typeof teardown === 'function') state.teardowns.push(teardown);
      if (!state.plugins.includes(p.name)) state.plugins.push(p.name);
    } catch (e) {
      t.log('WARN', `plugin ${p.name} failed to set up (${(e as Error).message}); it is skipped`);
    }
  }
}

/** Installs a plugin into the running tracer (for integrations loaded after initializeLog). */
export function addPlugin(plugin: Plugin): boolean {
  const t = activeTracer();
  if (t === null) return false;
  installPlugins(t, [plugin]);
  return true;
}


/**
 * Flushes and closes the trace: plugins are torn down, the `end` event is written last. In a
 * worker thread it flushes the thread's events into the process's file. Idempotent.
 */
export function finalize(): void {
  const state = coreState();
  const t = state.tracer;
  if (t === null || !state.live) return;
  state.live = false;
  for (const teardown of state.teardowns.splice(0).reverse()) {
    try {
      teardown();
    } catch (e) {
      t.log('WARN', `a plugin failed to tear down: ${(e as Error).message}`);
    }
  }
  const ownsFile = state.ownsFile;
  try {
    // Not active: writing failed earlier (already reported); there is nothing more to write.
    if (t.active) {
      // The last interval's aggregated records: before `end` (README, Aggregation).
      t.drainFolds();
      t.settle();
      // Other threads stop writing here: `end` is the last line and num_events exact.
      if (ownsFile) t.file.seal();
      if (ownsFile && t.active) {
        // Every record before `end`, metadata included, as upstream counts (flushed by settle()).
        const numEvents = t.recordsWritten();
        t.record(t.interner.kind('end', 'dftracer'), t.nextId(), t.identity.tid, nowUs(), 0, 1, -1, {
          num_events: numEvents,
          plugins: [...state.plugins],
          ...encoderArgs(t.file.encoderStats.counts()),
          ...runDescription(t.config, [...t.used, ...t.file.usedNames()], state.app),
        });
      }
      t.flush();
      if (ownsFile && t.active) t.closeArray();
    }
  } catch (e) {
    t.log('WARN', `finalize could not write the last events: ${(e as Error)?.message ?? String(e)}`);
  } finally {
    t.active = false;
    unguardTraceFd();
    if (ownsFile) {
      t.file.close();
      if (isMainThread) restoreChildEnv();
    }
  }
  state.app = {};
  state.droppedReported = t.dropped;
  if (t.dropped > 0 || t.truncated > 0) t.log('INFO', `${t.dropped} event(s) dropped, ${t.truncated} truncated`);
}

/** The `end` event's account of how the batches before it were encoded (gzip/encoder-stats.ts). */
function encoderArgs(c: EncoderCounts): Args {
  return { batches_zlib: c.zlib, batches_plain: c.plain };
}

/** Integer µs since the epoch on the tracer's clock; 0 when tracing is off (as upstream). */
export function getTime(): number {
  return activeTracer() === null ? 0 : nowUs();
}

/** Writes a `CM` metadata record (key, value) into the trace. */
export function logMetadata(key: string, value: unknown): void {
  activeTracer()?.metadata(key, value);
}
