import { resolve } from 'node:path';
import type { DFTracerConfig, GzipEncoder, LogLevel } from '../types.js';

/** Options accepted by `initializeLog`; each overrides its DFTRACER_* variable. */
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
  /** Counter sampling interval in ms (DFTRACER_COUNTERS_INTERVAL_MS); 0 turns counters off. */
  countersIntervalMs?: number;
}

/** A configuration value that is not one of the accepted ones; the message names the source. */
export class ConfigError extends Error {
  override readonly name = 'DFTracerConfigError';
}

const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no']);
const BOOL_VALUES = '1/true/on/yes or 0/false/off/no';
const LEVELS: readonly LogLevel[] = ['ERROR', 'WARN', 'INFO', 'DEBUG'];
const ENCODERS: readonly GzipEncoder[] = ['auto', 'custom', 'zlib'];

export const DEFAULT_WRITE_BUFFER_SIZE = 1 << 20;
/** Counters (issue 24): one sample per 100 ms costs far below measurement noise (core/README, `pnpm bench`). */
export const DEFAULT_COUNTERS_INTERVAL_MS = 100;
const MAX_COUNTERS_INTERVAL_MS = 3_600_000;

type Env = Readonly<Record<string, string | undefined>>;

function envBool(env: Env, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid; accepted values: ${BOOL_VALUES}`);
}

function envInt(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = raw.trim();
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid; accepted values: an integer from ${min} to ${max}`);
  }
  return Number(v);
}

function checkInt(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigError(`option ${name}=${String(v)} is not valid; accepted values: an integer from ${min} to ${max}`);
  }
  return v;
}

function checkBool(name: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new ConfigError(`option ${name}=${String(v)} is not valid; accepted values: true or false`);
  return v;
}

function checkLevel(source: string, v: string): LogLevel {
  const up = v.trim().toUpperCase();
  if (up === 'WARNING') return 'WARN';
  if ((LEVELS as readonly string[]).includes(up)) return up as LogLevel;
  throw new ConfigError(`${source}=${JSON.stringify(v)} is not valid; accepted values: ${LEVELS.join(', ')}`);
}

function checkEncoder(source: string, v: unknown): GzipEncoder {
  const s = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if ((ENCODERS as readonly unknown[]).includes(s)) return s as GzipEncoder;
  const shown = source.startsWith('option ') ? String(v) : JSON.stringify(v); // as the other checks show them
  throw new ConfigError(`${source}=${shown} is not valid; accepted values: ${ENCODERS.join(', ')}`);
}

/** Splits DFTRACER_DATA_DIR into absolute prefixes; `all` (or nothing) traces every path. */
export function parseDataDirs(spec: string | readonly string[] | undefined, source: string): { dataDirs: string[]; traceAll: boolean } {
  const parts = spec === undefined ? [] : typeof spec === 'string' ? spec.split(':') : [...spec];
  const dirs = parts.map((p) => {
    if (typeof p !== 'string') throw new ConfigError(`${source} must hold strings; got ${String(p)}`);
    return p.trim();
  }).filter((p) => p !== '');
  if (dirs.length === 0 || dirs.some((d) => d.toLowerCase() === 'all')) return { dataDirs: [], traceAll: true };
  return { dataDirs: [...new Set(dirs.map((d) => stripSlash(resolve(d))))], traceAll: false };
}

function stripSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/** True when `path` (absolute, normalised) is `prefix` or lies below it: `/data` does not match `/database`. */
export function underPrefix(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  return path.length === prefix.length || prefix === '/' || path.charCodeAt(prefix.length) === 47 /* / */;
}

/** Reads the DFTRACER_* variables, then applies code options over them. Throws ConfigError. */
export function resolveConfig(options: ConfigOptions = {}, env: Env = process.env): DFTracerConfig {
  const enable = options.enable !== undefined ? checkBool('enable', options.enable) : envBool(env, 'DFTRACER_ENABLE', false);
  const dataSpec = options.dataDir ?? env.DFTRACER_DATA_DIR;
  const { dataDirs, traceAll } = parseDataDirs(dataSpec, options.dataDir !== undefined ? 'option dataDir' : 'DFTRACER_DATA_DIR');
  const logFile = options.logFile ?? (env.DFTRACER_LOG_FILE?.trim() || './trace');
  if (typeof logFile !== 'string' || logFile === '') throw new ConfigError(`option logFile must be a non-empty string; got ${String(logFile)}`);
  return {
    enable,
    logFile,
    dataDirs,
    traceAll,
    incMetadata: options.incMetadata !== undefined ? checkBool('incMetadata', options.incMetadata) : envBool(env, 'DFTRACER_INC_METADATA', true),
    disableIo: options.disableIo !== undefined ? checkBool('disableIo', options.disableIo) : envBool(env, 'DFTRACER_DISABLE_IO', false),
    compression: options.compression !== undefined ? checkBool('compression', options.compression) : envBool(env, 'DFTRACER_TRACE_COMPRESSION', true),
    compressionLevel: options.compressionLevel !== undefined ? checkInt('compressionLevel', options.compressionLevel, 1, 9) : envInt(env, 'DFTRACER_COMPRESSION_LEVEL', 1, 1, 9),
    gzipEncoder: options.gzipEncoder !== undefined ? checkEncoder('option gzipEncoder', options.gzipEncoder) : env.DFTRACER_GZIP_ENCODER?.trim() ? checkEncoder('DFTRACER_GZIP_ENCODER', env.DFTRACER_GZIP_ENCODER) : 'auto',
    writeBufferSize: options.writeBufferSize !== undefined ? checkInt('writeBufferSize', options.writeBufferSize, 1, 1 << 30) : envInt(env, 'DFTRACER_WRITE_BUFFER_SIZE', DEFAULT_WRITE_BUFFER_SIZE, 1, 1 << 30),
    bindSignals: options.bindSignals !== undefined ? checkBool('bindSignals', options.bindSignals) : envBool(env, 'DFTRACER_BIND_SIGNALS', false),
    logLevel: options.logLevel !== undefined ? checkLevel('option logLevel', options.logLevel) : env.DFTRACER_LOG_LEVEL?.trim() ? checkLevel('DFTRACER_LOG_LEVEL', env.DFTRACER_LOG_LEVEL) : 'WARN',
    disableTids: options.disableTids !== undefined ? checkBool('disableTids', options.disableTids) : envBool(env, 'DFTRACER_DISABLE_TIDS', false),
    countersIntervalMs: options.countersIntervalMs !== undefined ? checkInt('countersIntervalMs', options.countersIntervalMs, 0, MAX_COUNTERS_INTERVAL_MS) : envInt(env, 'DFTRACER_COUNTERS_INTERVAL_MS', DEFAULT_COUNTERS_INTERVAL_MS, 0, MAX_COUNTERS_INTERVAL_MS),
  };
}
