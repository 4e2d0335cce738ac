import { resolve } from 'node:path';
import { INVALID, type Kind } from './kinds.js';

/** Which files the fs tracer traces: absolute prefixes, or every path. */
export interface DataDirs {
  /** Absolute path prefixes whose files are traced; empty when `traceAll`. */
  readonly dataDirs: readonly string[];
  /** DFTRACER_DATA_DIR=all (or unset). */
  readonly traceAll: boolean;
}

/** Splits DFTRACER_DATA_DIR into absolute prefixes; `all` (or nothing) traces every path. */
export function parseDataDirs(spec: string | readonly string[]): DataDirs {
  const parts = typeof spec === 'string' ? spec.split(':') : spec;
  const dirs = parts.map((p) => p.trim()).filter((p) => p !== '');
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

export const dataDirs: Kind<DataDirs> = {
  accepted: '`:`-separated directories or `all`',
  acceptedOption: 'a `:`-separated string of directories, an array of them, or `all`',
  fromText: (t) => parseDataDirs(t),
  fromValue(v) {
    if (typeof v === 'string') return parseDataDirs(v);
    if (Array.isArray(v) && v.every((p) => typeof p === 'string')) return parseDataDirs(v as string[]);
    return INVALID;
  },
  // A prefix holding ':' cannot be written in the ':'-separated list: the child then keeps what it inherited.
  toText: (v) => (v.traceAll ? 'all' : v.dataDirs.some((d) => d.includes(':')) ? undefined : v.dataDirs.join(':')),
};
