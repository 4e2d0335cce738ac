import { dirname, resolve } from 'node:path';
import type { Args, Span } from '../types.js';
import { fileMode, toAbsolutePath } from './paths.js';
import type { FsState } from './state.js';

/**
 * How one fs function is reported. The event is named like the libc call it performs, with
 * DFTracer's argument names; `ret` is 0 on success (or a count, see `ret`) and -1 on failure.
 */
export interface OpSpec {
  /** Event name. */
  readonly ev: string;
  /**
   * Where the file is named: `path` first argument; `fd` first argument is an fd (or `this` is a
   * FileHandle); `two` old and new path, traced when either is: `fhash` names the old path if
   * traced, else the new one, `newpath_hash` the new path when both are; `symlink` (target, path)
   * likewise, the target resolved against the link's directory.
   */
  readonly on: 'path' | 'fd' | 'two' | 'symlink';
  /** An argument worth recording, the one right after the file argument(s). */
  readonly key?: 'mode' | 'length';
  /** Its value from the raw argument; undefined → left out. */
  readonly value?: (v: unknown) => number | undefined;
  /** `ret` of a successful call from its result (default 0). */
  readonly ret?: (result: unknown) => number;
  /** The result is the path that was created (mkdtemp): `fhash` names it. */
  readonly hashResult?: boolean;
  /** Node implements the async forms with further exported calls after a tick (see FsState.scopes). */
  readonly scoped?: boolean;
}

const modeArg = (dflt: number) => (v: unknown): number => {
  if (v !== null && typeof v === 'object') return fileMode((v as { mode?: unknown }).mode, dflt);
  return fileMode(v, dflt);
};
const chmodMode = (v: unknown): number | undefined => (typeof v === 'number' || typeof v === 'string' ? fileMode(v, 0) : undefined);
const lengthArg = (v: unknown): number => (typeof v === 'number' ? Math.max(0, v) : 0);
const countOf = (r: unknown): number => (Array.isArray(r) ? r.length : 0);
const bytesOf = (r: unknown): number => (typeof r === 'string' ? Buffer.byteLength(r) : ArrayBuffer.isView(r) ? r.byteLength : 0);
/** statSync/lstatSync with `throwIfNoEntry: false` return undefined for a missing file. */
const statRet = (r: unknown): number => (r === undefined ? -1 : 0);

/** Path-based operations, by the name of their callback form. */
export const PATH_OPS: Readonly<Record<string, OpSpec>> = {
  access: { ev: 'access', on: 'path', key: 'mode', value: (v) => (typeof v === 'number' ? v : 0) },
  stat: { ev: 'stat', on: 'path', ret: statRet },
  lstat: { ev: 'lstat', on: 'path', ret: statRet },
  statfs: { ev: 'statfs', on: 'path' },
  mkdir: { ev: 'mkdir', on: 'path', key: 'mode', value: modeArg(0o777) },
  rmdir: { ev: 'rmdir', on: 'path', scoped: true },
  rm: { ev: 'remove', on: 'path', scoped: true },
  unlink: { ev: 'unlink', on: 'path' },
  truncate: { ev: 'truncate', on: 'path', key: 'length', value: lengthArg },
  chmod: { ev: 'chmod', on: 'path', key: 'mode', value: chmodMode },
  lchmod: { ev: 'lchmod', on: 'path', key: 'mode', value: chmodMode },
  chown: { ev: 'chown', on: 'path' },
  lchown: { ev: 'lchown', on: 'path' },
  utimes: { ev: 'utimes', on: 'path' },
  lutimes: { ev: 'lutimes', on: 'path' },
  readdir: { ev: 'readdir', on: 'path', ret: countOf },
  opendir: { ev: 'opendir', on: 'path' },
  readlink: { ev: 'readlink', on: 'path', ret: bytesOf },
  realpath: { ev: 'realpath', on: 'path', scoped: true },
  mkdtemp: { ev: 'mkdtemp', on: 'path', hashResult: true },
  rename: { ev: 'rename', on: 'two' },
  link: { ev: 'link', on: 'two' },
  copyFile: { ev: 'copyfile', on: 'two' },
  symlink: { ev: 'symlink', on: 'symlink' },
};

/** fd-based operations (FileHandle methods use the same specs), by the name of their callback form. */
export const FD_OPS: Readonly<Record<string, OpSpec>> = {
  fstat: { ev: 'fstat', on: 'fd' },
  ftruncate: { ev: 'ftruncate', on: 'fd', key: 'length', value: lengthArg },
  fsync: { ev: 'fsync', on: 'fd' },
  fdatasync: { ev: 'fdatasync', on: 'fd' },
  fchmod: { ev: 'fchmod', on: 'fd', key: 'mode', value: chmodMode },
  fchown: { ev: 'fchown', on: 'fd' },
  futimes: { ev: 'futimes', on: 'fd' },
};

/** FileHandle methods that are single fd operations. */
export const HANDLE_OPS: Readonly<Record<string, OpSpec>> = {
  stat: FD_OPS.fstat!,
  truncate: FD_OPS.ftruncate!,
  sync: FD_OPS.fsync!,
  datasync: FD_OPS.fdatasync!,
  chmod: FD_OPS.fchmod!,
  chown: FD_OPS.fchown!,
  utimes: FD_OPS.futimes!,
};

/**
 * Which file(s) a path-based call names, if traced: returns the fhash (and leaves the new path's
 * hash in `target.second` for `two`/`symlink`; for `hashResult` the absolute prefix instead of a
 * hash), or undefined when the call is not traced.
 */
export const target = {
  second: undefined as string | undefined,
  of(st: FsState, spec: OpSpec, a: ArrayLike<unknown>): string | undefined {
    if (spec.hashResult === true) {
      // mkdtemp: decided by the prefix, named by the directory it creates (see opArgs)
      const abs = toAbsolutePath(a[0]);
      return abs !== undefined && st.tracedAbs(abs) ? abs : undefined;
    }
    if (spec.on === 'path') return st.pathHash(a[0]);
    if (spec.on === 'fd') return st.fds.get(a[0] as number)?.fhash;
    let from: string | undefined;
    const to = toAbsolutePath(a[1]);
    if (spec.on === 'symlink') {
      const t = a[0];
      const ts = typeof t === 'string' ? t : t instanceof Uint8Array ? Buffer.from(t).toString('utf8') : undefined;
      from = ts === undefined || to === undefined ? undefined : resolve(dirname(to), ts);
    } else from = toAbsolutePath(a[0]);
    if (from === undefined || to === undefined) return undefined;
    // Paths outside the data dirs are never recorded: fhash names the first traced path, and
    // newpath_hash is there when both are traced.
    const hFrom = st.absHash(from);
    const hTo = st.absHash(to);
    this.second = hFrom !== undefined ? hTo : undefined;
    return hFrom ?? hTo;
  },
};

/** The event args of a finished path/fd operation. `extra` is the argument after the file(s). */
export function opArgs(st: FsState, spec: OpSpec, fhash: string, second: string | undefined, extra: unknown, ok: boolean, result: unknown): Args {
  let h = fhash;
  if (spec.hashResult === true) h = st.hashAlways(ok ? result : fhash) ?? ''; // `fhash` holds the prefix path here
  const ret = ok ? (spec.ret === undefined ? 0 : spec.ret(result)) : -1;
  if (spec.on === 'two' || spec.on === 'symlink') return second === undefined ? { fhash: h, ret } : { fhash: h, newpath_hash: second, ret };
  if (spec.key !== undefined) {
    const v = spec.value!(extra);
    if (v !== undefined) return spec.key === 'mode' ? { fhash: h, mode: v, ret } : { fhash: h, length: v, ret };
  }
  return { fhash: h, ret };
}

/** Closes the span of an async operation with its args (a failure to build them is reported, never thrown). */
export function finishOp(st: FsState, spec: OpSpec, span: Span, fhash: string, second: string | undefined, extra: unknown, ok: boolean, result: unknown): void {
  let args: Args | undefined;
  try {
    args = opArgs(st, spec, fhash, second, extra, ok, result);
  } catch (e) {
    st.fail(e);
  }
  if (args !== undefined) st.end(span, spec.ev, args);
}
