/* eslint-disable prefer-rest-params -- `arguments` forwards the exact argument count (Node's
   readSync and read branch on arguments.length) without allocating, which rest params do not. */
import type { Args } from '../types.js';
import { POSITIONED, io, parseReadSync, parseVector, parseWrite } from './args.js';
import { stampUs } from '../recording/clock.js';
import { dress, type AnyFn } from './identity.js';
import { createsFile, fileMode, openFlags } from './paths.js';
import { opArgs, target, type OpSpec } from './specs.js';
import type { FdEntry, FsState } from './state.js';

/*
 * Sync wrappers. Each measures [t0, t1] around the original and emits one event in `finally`, so
 * the return value and any exception reach the caller untouched. The hot ones (open, read, write,
 * close) are written out by hand: no closure, no rest array, one Map lookup per fd call.
 */

export function openArgs(fhash: string, flags: unknown, mode: unknown, ret: number): Args {
  const f = openFlags(flags, 'r');
  return createsFile(f) ? { fhash, flags: f, mode: fileMode(mode, 0o666), ret } : { fhash, flags: f, ret };
}

export function openSync(st: FsState, orig: AnyFn): AnyFn {
  return dress(function openSync(this: unknown, path: unknown, flags: unknown, mode: unknown) {
    st.calls++;
    if (st.quiet !== 0) return orig.apply(this, arguments as never);
    const fhash = st.pathHash(path);
    if (fhash === undefined) {
      const fd = orig.apply(this, arguments as never) as number;
      st.fds.delete(fd); // this fd number no longer means an earlier traced file
      return fd;
    }
    const t0 = st.now();
    let fd = -1;
    try {
      fd = orig.apply(this, arguments as never) as number;
      return fd;
    } finally {
      const t1 = st.now();
      if (fd >= 0) {
        st.fds.set(fd, { fhash });
        if (st.gapFd === -2) {
          st.gapFd = fd; // readFileSync: its fstat follows this open
          st.gapStart = t1;
        }
      }
      st.emit('open', t0, t1, openArgs(fhash, flags, mode, fd));
    }
  }, orig);
}

export function closeSync(st: FsState, orig: AnyFn): AnyFn {
  return dress(function closeSync(this: unknown, fd: number) {
    const e = st.quiet === 0 ? st.fds.get(fd) : undefined;
    if (e === undefined) return orig.apply(this, arguments as never);
    const t0 = st.now();
    if (st.gapFd === fd) st.gapEnd = t0; // readFileSync closes before reading only when its fstat failed
    let ok = false;
    try {
      const r = orig.apply(this, arguments as never);
      ok = true;
      return r;
    } finally {
      if (st.fds.get(fd) === e) st.fds.delete(fd); // the fd is released even when close fails
      st.emit('close', t0, st.now(), { fhash: e.fhash, ret: ok ? 0 : -1 });
    }
  }, orig);
}

/** readFileSync's fstat, reported in the gap before the first read of its fd. */
function gapFstat(st: FsState, e: FdEntry, t: number): void {
  st.gapFd = -1;
  st.emit('fstat', st.gapStart, t, { fhash: e.fhash, ret: 0 });
}

/**
 * Fills `io.count` (bytes asked for) and `io.pos` (file position, -1 for the current one) from a
 * call's arguments after the fd, and their count. Given as values, not as `arguments`: passing
 * `arguments` on makes V8 build the object (~90 bytes per call, a scavenge every ~15 k reads).
 */
type ParseTransfer = (a1: unknown, a2: unknown, a3: unknown, a4: unknown, argc: number) => void;

/**
 * A data transfer on a traced fd (read, write, readv, writev): one event named `name`, or
 * `positioned` (pread, pwrite, …) when the call gives a file position, with the bytes asked for
 * and the bytes moved.
 */
function transferSync(st: FsState, orig: AnyFn, name: string, positioned: string, parse: ParseTransfer): AnyFn {
  const atCurrent = st.shape(name, ['fhash', 'count', 'ret']);
  const atOffset = st.shape(positioned, ['fhash', 'count', 'offset', 'ret']);
  // The call's times, bytes asked for and file position go through Float64Arrays: a double held in
  // a local that is live into an exception handler, or passed to or returned by a call V8 does not
  // inline, is boxed (16 bytes each; see FsState.emitTransfer).
  const clock = new Float64Array(2);
  const call = new Float64Array(2);
  /** Whether a call is between parsing and recording: one made inside it has its own locals (nested). */
  let busy = false;
  const record = (e: FdEntry, ret: number): void => {
    stampUs(clock, 1);
    st.emitTransfer(atCurrent, atOffset, clock, call, e.fhash, ret);
  };
  /**
   * A call made while another is in progress (from an options getter Node runs inside the outer
   * call): recorded from locals, so the outer call's arrays stay its own.
   */
  const nested = (self: unknown, e: FdEntry, argc: number, fd: number, a1: unknown, a2: unknown, a3: unknown, a4: unknown): unknown => {
    let count: number;
    let pos: number;
    try {
      parse(a1, a2, a3, a4, argc);
      count = io.count;
      pos = io.pos;
    } catch (err) {
      st.fail(err);
      return callArity(orig, self, argc, fd, a1, a2, a3, a4);
    }
    const t0 = st.now();
    let ret = -1;
    try {
      ret = callArity(orig, self, argc, fd, a1, a2, a3, a4) as number;
      return ret;
    } finally {
      st.emit(pos < 0 ? name : positioned, t0, st.now(), pos < 0 ? { fhash: e.fhash, count, ret } : { fhash: e.fhash, count, offset: pos, ret });
    }
  };
  return dress(function (this: unknown, fd: number, a1: unknown, a2: unknown, a3: unknown, a4: unknown) {
    st.calls++;
    const e = st.quiet === 0 ? st.fds.get(fd) : undefined;
    if (e === undefined) return orig.apply(this, arguments as never);
    const argc = arguments.length;
    if (busy) return nested(this, e, argc, fd, a1, a2, a3, a4);
    try {
      parse(a1, a2, a3, a4, argc);
      call[0] = io.count;
      call[1] = io.pos;
    } catch (err) {
      st.fail(err);
      return orig.apply(this, arguments as never);
    }
    stampUs(clock, 0);
    if (st.gapFd === fd) gapFstat(st, e, clock[0]!);
    let ret: number;
    busy = true;
    try {
      ret = callArity(orig, this, argc, fd, a1, a2, a3, a4) as number;
    } catch (err) {
      busy = false;
      record(e, -1);
      throw err;
    }
    busy = false;
    record(e, ret);
    return ret;
  }, orig);
}

/**
 * `orig` called with the first `argc` of the wrapper's arguments, as the caller passed them (Node's
 * fs functions branch on `arguments.length`). Not `orig.apply(this, arguments)`: where V8 inlines
 * the wrapper into its caller, that builds the arguments object, 32 bytes a call. The wrapped
 * functions take at most five parameters and ignore any beyond.
 */
function callArity(orig: AnyFn, self: unknown, argc: number, fd: number, a1: unknown, a2: unknown, a3: unknown, a4: unknown): unknown {
  if (argc >= 5) return orig.call(self, fd, a1, a2, a3, a4);
  if (argc === 4) return orig.call(self, fd, a1, a2, a3);
  if (argc === 3) return orig.call(self, fd, a1, a2);
  if (argc === 2) return orig.call(self, fd, a1);
  return orig.call(self, fd); // only fd: the wrapper found it traced, so there is one
}

export function readSync(st: FsState, orig: AnyFn): AnyFn {
  return transferSync(st, orig, 'read', POSITIONED.read, parseReadSync);
}

export function writeSync(st: FsState, orig: AnyFn): AnyFn {
  return transferSync(st, orig, 'write', POSITIONED.write, (a1, a2, a3, a4) => parseWrite(a1, a2, a3, a4, false));
}

/** readvSync / writevSync: readv/preadv, writev/pwritev. */
export function vectorSync(st: FsState, orig: AnyFn, name: 'readv' | 'writev'): AnyFn {
  return transferSync(st, orig, name, POSITIONED[name], (a1, a2) => parseVector(a1, a2));
}

/**
 * Every other sync operation: one event named by its spec. Calls the original with `quiet` raised,
 * so the exported functions Node uses inside (rmSync → lstatSync/unlinkSync, truncateSync →
 * openSync/ftruncateSync/closeSync) are part of this one event.
 */
export function genericSync(st: FsState, orig: AnyFn, spec: OpSpec): AnyFn {
  const extraAt = spec.on === 'two' || spec.on === 'symlink' ? 2 : 1;
  return dress(function (this: unknown) {
    if (st.quiet !== 0) return orig.apply(this, arguments as never);
    // truncateSync(fd) (deprecated) is ftruncateSync: let that wrapper report it.
    if (spec.on === 'path' && typeof arguments[0] === 'number') return orig.apply(this, arguments as never);
    const fhash = target.of(st, spec, arguments);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const second = target.second;
    const t0 = st.now();
    let ok = false;
    let result: unknown;
    st.quiet++;
    try {
      result = orig.apply(this, arguments as never);
      ok = true;
      return result;
    } finally {
      st.quiet--;
      const t1 = st.now();
      let args: Args | undefined;
      try {
        args = opArgs(st, spec, fhash, second, arguments[extraAt], ok, result);
      } catch (err) {
        st.fail(err);
      }
      if (args !== undefined) st.emit(spec.ev, t0, t1, args);
    }
  }, orig);
}

/** existsSync is access(F_OK) that answers a boolean instead of throwing. */
export function existsSync(st: FsState, orig: AnyFn): AnyFn {
  return dress(function existsSync(this: unknown, path: unknown) {
    if (st.quiet !== 0) return orig.apply(this, arguments as never);
    const fhash = st.pathHash(path);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const t0 = st.now();
    let found = false;
    try {
      found = orig.apply(this, arguments as never) as boolean;
      return found;
    } finally {
      st.emit('access', t0, st.now(), { fhash, mode: 0, ret: found ? 0 : -1 });
    }
  }, orig);
}
