import { constants } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The absolute, normalised path a `node:fs` call will touch, or undefined when the argument is not
 * a path Node accepts (a number, an object, a non-file URL...). Relative paths resolve against
 * `process.cwd()` at the call, as the kernel does. Never throws: the original function reports
 * invalid arguments itself.
 */
export function toAbsolutePath(p: unknown): string | undefined {
  let s: string;
  if (typeof p === 'string') s = p;
  else if (p instanceof Uint8Array) s = Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8');
  else if (isUrlLike(p)) {
    try {
      s = fileURLToPath(p instanceof URL ? p : new URL(p.href));
    } catch {
      return undefined;
    }
  } else return undefined;
  if (s.length === 0) return undefined;
  return resolve(s);
}

/** Node's own test for URL objects (`internal/url` isURL): duck-typed, so URL-likes work too. */
function isUrlLike(p: unknown): p is { readonly href: string } {
  if (p === null || typeof p !== 'object') return false;
  const u = p as { href?: unknown; protocol?: unknown; auth?: unknown; path?: unknown };
  return typeof u.href === 'string' && typeof u.protocol === 'string' && u.auth === undefined && u.path === undefined;
}

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_EXCL, O_SYNC } = constants;

/** `fs` string flags as the open(2) flags Node passes to the kernel (`stringToFlags`). */
const STRING_FLAGS: Readonly<Record<string, number>> = {
  r: O_RDONLY,
  rs: O_RDONLY | O_SYNC,
  sr: O_RDONLY | O_SYNC,
  'r+': O_RDWR,
  'rs+': O_RDWR | O_SYNC,
  'sr+': O_RDWR | O_SYNC,
  w: O_TRUNC | O_CREAT | O_WRONLY,
  wx: O_TRUNC | O_CREAT | O_WRONLY | O_EXCL,
  xw: O_TRUNC | O_CREAT | O_WRONLY | O_EXCL,
  'w+': O_TRUNC | O_CREAT | O_RDWR,
  'wx+': O_TRUNC | O_CREAT | O_RDWR | O_EXCL,
  'xw+': O_TRUNC | O_CREAT | O_RDWR | O_EXCL,
  a: O_APPEND | O_CREAT | O_WRONLY,
  ax: O_APPEND | O_CREAT | O_WRONLY | O_EXCL,
  xa: O_APPEND | O_CREAT | O_WRONLY | O_EXCL,
  as: O_APPEND | O_CREAT | O_WRONLY | O_SYNC,
  sa: O_APPEND | O_CREAT | O_WRONLY | O_SYNC,
  'a+': O_APPEND | O_CREAT | O_RDWR,
  'ax+': O_APPEND | O_CREAT | O_RDWR | O_EXCL,
  'xa+': O_APPEND | O_CREAT | O_RDWR | O_EXCL,
  'as+': O_APPEND | O_CREAT | O_RDWR | O_SYNC,
  'sa+': O_APPEND | O_CREAT | O_RDWR | O_SYNC,
};

/** open(2) flags for an `fs` flags argument (`undefined`/`null` → the given default). -1 if unknown. */
export function openFlags(flags: unknown, dflt: string): number {
  if (typeof flags === 'number') return flags;
  if (flags == null) return STRING_FLAGS[dflt] ?? -1;
  if (typeof flags === 'string') return STRING_FLAGS[flags] ?? -1;
  return -1;
}

export function createsFile(flags: number): boolean {
  return flags !== -1 && (flags & O_CREAT) !== 0;
}

/** A file mode argument as a number (`parseFileMode` accepts octal strings), else the default. */
export function fileMode(mode: unknown, dflt: number): number {
  if (typeof mode === 'number') return mode;
  if (typeof mode === 'string' && /^[0-7]+$/.test(mode)) return parseInt(mode, 8);
  return dflt;
}
