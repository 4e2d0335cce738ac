import { hostname as osHostname } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { getEnvironmentData, isMainThread, setEnvironmentData, threadId } from 'node:worker_threads';
import { builtinPlugins } from './builtin-plugins.js';
import { exportToChildren, restoreChildEnv } from './children.js';
import { nowUs } from './clock.js';
import { ConfigError, resolveConfig, type ConfigOptions } from './config.js';
import { writeDiagnostic } from './diagnostics.js';
import { dftHash } from './hash.js';
import { guardCloses } from './fs/close-guard.js';
import { guardTraceFd, unguardTraceFd } from './trace-fd-guard.js';
import { TraceFile, type SharedFile } from './trace-file.js';
import { ThreadTracer } from './tracer.js';
import type { EncoderCounts } from './gzip/index.js';
import type { Args, DFTracerConfig, Plugin, Teardown } from './types.js';

declare const __DFTRACER_VERSION__: string | undefined;
export const VERSION = typeof __DFTRACER_VERSION__ === 'string' ? __DFTRACER_VERSION__ : '0.0.0-dev';

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

/** Per-thread state, shared by the ESM and CJS copies of this package through a global symbol. */
interface CoreState {
  tracer: ThreadTracer | null;
  teardowns: Teardown[];
  plugins: string[];
  initCount: number;
  hooked: boolean;
  /** This thread created the file: it writes `end` and closes it; joined workers only flush. */
  ownsFile: boolean;
  /** Config of the last successful init, so integrations can ask whether tracing is wanted. */
  config: DFTracerConfig | null;
  /** Between a successful initializeLog and finalize (even if writing failed meanwhile). */
  live: boolean;
  /** Events already reported as dropped, so the exit hook reports only those that came later. */
  droppedReported: number;
}

const STATE_KEY = Symbol.for('dftracer.core.state');
const SHARED_KEY = 'dftracer.core.shared';

export function coreState(): CoreState {
  const g = globalThis as { [STATE_KEY]?: CoreState };
  return (g[STATE_KEY] ??= { tracer: null, teardowns: [], plugins: [], initCount: 0, hooked: false, ownsFile: false, config: null, live: false, droppedReported: 0 });
}

/** The active tracer of this thread, or null when tracing is off (not initialised or finalised). */
export function activeTracer(): ThreadTracer | null {
  const t = coreState().tracer;
  return t !== null && t.active ? t : null;
}

/**
 * Whether wrappers should be installed at decoration time. Only when tracing is explicitly off
 * (DFTRACER_ENABLE=0, or an init that resolved to disabled) do decorators return the function
 * itself; otherwise a thin wrapper calls straight through until a tracer is active, so functions
 * decorated at import time are traced by an `initializeLog({ enable: true })` made later.
 */
export function tracingWanted(): boolean {
  const s = coreState();
  if (s.tracer !== null && s.tracer.active) return true;
  if (s.config !== null) return s.config.enable;
  const v = process.env.DFTRACER_ENABLE?.trim().toLowerCase();
  return !(v === '0' || v === 'false' || v === 'off' || v === 'no');
}

interface SharedInit {
  readonly shared: SharedFile;
  readonly config: DFTracerConfig;
  readonly hostname: string;
}

function execName(): string {
  const script = process.argv[1];
  return script ? basename(script) : 'DEFAULT';
}

/** `<prefix>-<H(exec-host-pid)>-app.pfw[.gz]`, with .pfw/.pfw.gz or another extension stripped. */
export function traceFilePath(prefix: string, compression: boolean, identity: string): string {
  const abs = resolve(prefix);
  let stem = basename(abs);
  if (stem.endsWith('.pfw.gz')) stem = stem.slice(0, -7);
  else if (stem.endsWith('.pfw')) stem = stem.slice(0, -4);
  else if (stem.lastIndexOf('.') > 0) stem = stem.slice(0, stem.lastIndexOf('.'));
  return `${dirname(abs)}/${stem}-${dftHash(identity)}-app.pfw${compression ? '.gz' : ''}`;
}

function asctime(d: Date): string {
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getDay()]!;
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getMonth()]!;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day} ${mon} ${String(d.getDate()).padStart(2, ' ')} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${d.getFullYear()}`;
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

function normaliseArgs(a: InitOptions | string | undefined, dataDir?: string | null, processId?: number): InitOptions {
  if (a === undefined || a === null) return dataDir != null ? { dataDir } : {};
  if (typeof a === 'string') {
    const o: InitOptions = { logFile: a };
    if (dataDir != null) o.dataDir = dataDir;
    if (processId !== undefined) o.processId = processId;
    return o;
  }
  if (typeof a !== 'object') throw new TypeError(`initializeLog: the first argument must be an options object or a log file path; got ${typeof a}`);
  return a;
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
  // Running (or stopped by a write error, which only finalize ends): the same logger.
  if (state.tracer !== null && state.live) return loggerFor(state.tracer);
  const options = normaliseArgs(a ?? undefined, dataDir, processId);
  const inherited = isMainThread ? undefined : (getEnvironmentData(SHARED_KEY) as SharedInit | undefined);

  let config: DFTracerConfig;
  try {
    config = inherited !== undefined && Object.keys(options).length === 0 ? inherited.config : resolveConfig(options);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    // Options passed in code are the caller's bug and throw; a bad variable must not break the program.
    if (/^option /.test(e.message)) throw e;
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
  installHooks(state);
  tracer.flush();
  if (isMainThread && state.ownsFile) {
    tracer.startWriter();
    // child_process and cluster children inherit the resolved settings and write their own files.
    exportToChildren(config);
  }
  return loggerFor(tracer);
}

/**
 * The `[` line, then upstream's preamble (HH, thread_name, FH of the cwd, SH of the command and of
 * the executable) and `start`, each record with the next id. The `[` goes first even when a tiny
 * DFTRACER_WRITE_BUFFER_SIZE flushes after every record.
 */
function writeHeader(t: ThreadTracer, hostname: string): void {
  const pid = t.identity.pid;
  const exec = execName();
  const cmd = process.argv.join(';');
  t.prepend('[\n');
  t.meta('HH', t.identity.tid, hostname, t.hostHash);
  t.meta('process_name', t.identity.tid, `${exec} (${pid})`, 'process_name');
  t.announceThread();
  const cwd = t.hashFile(currentDir());
  const cmdHash = t.hashString(cmd);
  const execHash = t.hashString(exec);
  const ts = nowUs();
  t.record(t.interner.kind('start', 'dftracer'), t.nextId(), t.identity.tid, ts, 0, 1, -1, {
    cmd_hash: cmdHash,
    exec_hash: execHash,
    cwd,
    version: VERSION,
    date: asctime(new Date(ts / 1000)),
    ppid: process.ppid,
  });
}

/** process.cwd() throws when the directory was removed: fall back to what the shell said. */
function currentDir(): string {
  try {
    return process.cwd();
  } catch {
    return process.env.PWD ?? '';
  }
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

/** Runs a tracer step from a process hook: whatever happens, the program's exit is not disturbed. */
function guarded(what: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    writeDiagnostic(`dftracer: WARN: ${what} failed: ${(e as Error)?.message ?? String(e)}\n`);
  }
}

function installHooks(state: CoreState): void {
  if (state.hooked) return;
  state.hooked = true;
  process.on('beforeExit', () => guarded('flush', () => activeTracer()?.flush()));
  process.on('exit', () =>
    guarded('finalize', () => {
      finalize();
      // Spans that ended after an explicit finalize (a promise settling late): counted, never written.
      const t = coreState().tracer;
      if (t !== null && t.dropped > coreState().droppedReported) t.log('INFO', `${t.dropped - coreState().droppedReported} event(s) arrived after finalize and were dropped`);
    }),
  );
  const t = state.tracer;
  if (t !== null && t.config.bindSignals && isMainThread) {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const onSignal = () => {
        if (process.listenerCount(sig) > 1) {
          // The program handles this signal itself and decides what happens next: tracing goes on
          // (its handler may still do traced work), the buffer is put on disk in case the end is
          // abrupt, and the exit hook closes the trace if it exits.
          guarded('flush', () => activeTracer()?.flush());
          return;
        }
        guarded('finalize', finalize);
        // Alone on this signal: re-raise with the default action so the exit status is the signal's.
        process.removeListener(sig, onSignal);
        process.kill(process.pid, sig);
      };
      process.on(sig, onSignal);
    }
  }
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
      t.settle();
      // Other threads stop writing here: `end` is the last line and num_events exact.
      if (ownsFile) t.file.seal();
      if (ownsFile && t.active) {
        // Every record before `end`, metadata included, as upstream counts (flushed by settle()).
        const numEvents = t.recordsWritten();
        t.record(t.interner.kind('end', 'dftracer'), t.nextId(), t.identity.tid, nowUs(), 0, 1, -1, { num_events: numEvents, plugins: [...state.plugins], ...encoderArgs(t.file.encoderStats.counts()) });
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
  state.droppedReported = t.dropped;
  if (t.dropped > 0 || t.truncated > 0) t.log('INFO', `${t.dropped} event(s) dropped, ${t.truncated} truncated`);
}

/** The `end` event's account of how the batches before it were encoded (gzip/encoder-stats.ts). */
function encoderArgs(c: EncoderCounts): Args {
  return { batches_custom: c.custom, batches_zlib: c.zlib, batches_plain: c.plain, batches_sampled: c.sampled, encoder_fallbacks: c.fallbacks };
}

/** Integer µs since the epoch on the tracer's clock; 0 when tracing is off (as upstream). */
export function getTime(): number {
  return activeTracer() === null ? 0 : nowUs();
}

/** Writes a `CM` metadata record (key, value) into the trace. */
export function logMetadata(key: string, value: unknown): void {
  activeTracer()?.metadata(key, value);
}
