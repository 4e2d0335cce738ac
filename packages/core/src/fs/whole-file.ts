/* eslint-disable prefer-rest-params -- see sync.ts */
import type { Args, Span } from '../types.js';
import { dataBytes, encodingOf, resultBytes } from './args.js';
import { dress, promiseShaped, type AnyFn } from './identity.js';
import { createsFile, fileMode, openFlags } from './paths.js';
import { openArgs } from './sync.js';
import type { FsState } from './state.js';

/*
 * Whole-file helpers: readFile, writeFile, appendFile in their sync, callback, promise and
 * FileHandle forms.
 *
 * Where Node implements one with the exported primitives (readFileSync → Buffer,
 * writeFileSync of a Buffer or a non-UTF-8 string, callback writeFile/appendFile), the primitives'
 * wrappers record the real operations with their real times, and the helper adds nothing — except
 * the fstat readFileSync does on the internal binding to size its buffer (see sync.ts, gapFd).
 *
 * Where Node does the work natively (readFileSync with 'utf8', writeFileSync of a UTF-8 string,
 * callback readFile, every fs/promises and FileHandle helper), the helper records the system calls
 * the native code makes — open, fstat, read/write, fsync, close — itself. Their individual times
 * cannot be observed: the data operation carries the whole duration and the others are zero-length
 * markers at its start (open, fstat) and end (fsync, close). The reads or writes of one native
 * loop are one event whose `count` and `ret` are the total bytes. A fused open has no `ret`: the fd
 * it got is never visible.
 *
 * The sync forms find out which way Node went at run time (FsState.calls), so they stay right if
 * Node changes its implementation; the async forms are native in Node 20 and 22.
 */

const READ_PATH = ['open', 'fstat', 'read', 'close'] as const;
const READ_FD = ['fstat', 'read'] as const;
const READ_UTF8_PATH = ['open', 'read', 'close'] as const;
const READ_UTF8_FD = ['read'] as const;
const WRITE_PATH = ['open', 'write', 'close'] as const;
const WRITE_FLUSH_PATH = ['open', 'write', 'fsync', 'close'] as const;
const WRITE_FD = ['write'] as const;
const SYSCALLS = new Set(['open', 'fstat', 'read', 'write', 'fsync', 'close']);

export interface Fused {
  readonly steps: readonly string[];
  readonly fhash: string;
  /** flags/mode arguments of the open, for its event. */
  readonly flags: unknown;
  readonly mode: unknown;
  readonly dfltFlag: string;
  /** Bytes read or written, when known. */
  readonly bytes: number | undefined;
}

function stepArgs(f: Fused, name: string, ok: boolean): Args {
  const ret = ok ? 0 : -1;
  switch (name) {
    case 'open': {
      if (!ok) return openArgs(f.fhash, f.flags ?? f.dfltFlag, f.mode, -1);
      const flags = openFlags(f.flags ?? f.dfltFlag, f.dfltFlag);
      return createsFile(flags) ? { fhash: f.fhash, flags, mode: fileMode(f.mode, 0o666) } : { fhash: f.fhash, flags };
    }
    case 'read':
    case 'write':
      if (f.bytes === undefined) return ok ? { fhash: f.fhash } : { fhash: f.fhash, ret };
      if (name === 'read' && !ok) return { fhash: f.fhash, ret };
      return { fhash: f.fhash, count: f.bytes, ret: ok ? f.bytes : -1 };
    default:
      return { fhash: f.fhash, ret };
  }
}

/**
 * Records the operations of one natively done whole-file call that ran [t0, t1] and ended with
 * `err` (undefined on success). `span`: the async span opened at the call (async forms); sync
 * forms emit.
 */
export function recordFused(st: FsState, f: Fused, t0: number, t1: number, err: unknown, span: Span | undefined): void {
  try {
    const steps = f.steps;
    const dataIdx = steps.findIndex((s) => s === 'read' || s === 'write');
    let fail = -1;
    let failName: string | undefined;
    if (err !== undefined) {
      const sc = (err as { syscall?: unknown } | null)?.syscall;
      fail = typeof sc === 'string' ? steps.indexOf(sc) : -1;
      if (fail === -1) {
        // A system call outside the plan failed: report it alone. An error that names no system
        // call (an abort, a file too large, bad arguments) is reported on the first operation.
        if (typeof sc === 'string' && SYSCALLS.has(sc)) failName = sc;
        fail = 0;
      }
    }
    const openIdx = steps.indexOf('open');
    const main = fail >= 0 ? fail : dataIdx;
    const evs: { name: string; ts: number; end: number; args: Args }[] = [];
    let mainAt = 0;
    for (let i = 0; i < steps.length; i++) {
      const name = steps[i]!;
      if (i === main) {
        const n = failName ?? name;
        mainAt = evs.length;
        evs.push({ name: n, ts: t0, end: t1, args: stepArgs(f, n, fail < 0) });
        if (failName !== undefined) break;
      } else if (i < main) evs.push({ name, ts: t0, end: t0, args: stepArgs(f, name, true) });
      else if (fail < 0 || (name === 'close' && openIdx !== -1 && fail > openIdx)) evs.push({ name, ts: t1, end: t1, args: stepArgs(f, name, true) });
    }
    if (span === undefined) {
      for (const e of evs) st.emit(e.name, e.ts, e.end, e.args);
      return;
    }
    if (st.exactEnd) {
      // The span opened at the call carries the first event; the others follow on the lane it
      // held for [t0, t1] (freed lanes are reused last-in first-out), so they overlap nothing
      // there, and ids follow time order.
      for (let i = 0; i < evs.length; i++) {
        const e = evs[i]!;
        if (i === 0) st.end(span, e.name, e.args, e.end);
        else st.put(e.name, e.ts, e.end, e.args);
      }
      return;
    }
    // A tracer without explicit end times: the span carries the main event, ending now; the
    // markers become zero-length events after it (right bytes and durations, later positions).
    st.end(span, evs[mainAt]!.name, evs[mainAt]!.args);
    for (let i = 0; i < evs.length; i++) if (i !== mainAt) st.put(evs[i]!.name, t1, t1, evs[i]!.args);
  } catch (e) {
    st.fail(e);
  }
}

function optionsFlag(options: unknown): unknown {
  return options !== null && typeof options === 'object' ? (options as { flag?: unknown }).flag : undefined;
}
function optionsMode(options: unknown): unknown {
  return options !== null && typeof options === 'object' ? (options as { mode?: unknown }).mode : undefined;
}
function optionsFlush(options: unknown): boolean {
  return options !== null && typeof options === 'object' && (options as { flush?: unknown }).flush === true;
}

// ---------------------------------------------------------------- sync

export function readFileSync(st: FsState, orig: AnyFn): AnyFn {
  return dress(function readFileSync(this: unknown, path: unknown, options: unknown) {
    if (st.quiet !== 0) return orig.apply(this, arguments as never);
    const isFd = typeof path === 'number';
    const fhash = st.targetHash(path);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const t0 = st.now();
    const c0 = st.calls;
    st.gapFd = isFd ? path : -2; // -2: the next traced open's fd
    st.gapStart = t0;
    st.gapEnd = -1;
    let ok = false;
    let result: unknown;
    let err: unknown;
    try {
      result = orig.apply(this, arguments as never);
      ok = true;
      return result;
    } catch (e) {
      err = e;
      throw e;
    } finally {
      const t1 = st.now();
      const gapFd = st.gapFd;
      const gapEnd = st.gapEnd;
      st.gapFd = -1;
      st.gapEnd = -1;
      if (st.calls !== c0) {
        // Through the exports; an fstat no read followed (it failed, or the file was too large).
        if (gapFd >= 0) st.emit('fstat', st.gapStart, gapEnd >= 0 ? gapEnd : t1, { fhash, ret: syscallOf(err) === 'fstat' ? -1 : 0 });
      } else {
        let bytes: number | undefined;
        try {
          bytes = ok ? resultBytes(result, encodingOf(options)) : undefined;
        } catch (e) {
          st.fail(e);
        }
        const flag = optionsFlag(options);
        recordFused(st, { steps: isFd ? READ_UTF8_FD : READ_UTF8_PATH, fhash, flags: flag, mode: undefined, dfltFlag: 'r', bytes }, t0, t1, ok ? undefined : err, undefined);
      }
    }
  }, orig);
}

function syscallOf(err: unknown): unknown {
  return err !== null && typeof err === 'object' ? (err as { syscall?: unknown }).syscall : undefined;
}

export function writeFileSync(st: FsState, orig: AnyFn): AnyFn {
  return dress(function writeFileSync(this: unknown, path: unknown, data: unknown, options: unknown) {
    if (st.quiet !== 0) return orig.apply(this, arguments as never);
    const isFd = typeof path === 'number';
    const fhash = st.targetHash(path);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const t0 = st.now();
    const c0 = st.calls;
    let ok = false;
    let err: unknown;
    try {
      const r = orig.apply(this, arguments as never);
      ok = true;
      return r;
    } catch (e) {
      err = e;
      throw e;
    } finally {
      const t1 = st.now();
      if (st.calls === c0) {
        let bytes: number | undefined;
        try {
          bytes = dataBytes(data, encodingOf(options) ?? 'utf8');
        } catch (e) {
          st.fail(e);
        }
        recordFused(st, { steps: isFd ? WRITE_FD : WRITE_PATH, fhash, flags: optionsFlag(options), mode: optionsMode(options), dfltFlag: 'w', bytes }, t0, t1, ok ? undefined : err, undefined);
      }
    }
  }, orig);
}

// ---------------------------------------------------------------- callback

/** fs.readFile(path | fd, options?, callback): native in Node 20 (ReadFileContext on the binding). */
export function readFileCallback(st: FsState, orig: AnyFn): AnyFn {
  return dress(function readFile(this: unknown, path: unknown, options: unknown, callback: unknown) {
    const cbAt = callback ? 2 : 1; // Node: callback ||= options
    const cb = arguments[cbAt] as unknown;
    if (st.quiet !== 0 || typeof cb !== 'function') return orig.apply(this, arguments as never);
    const isFd = typeof path === 'number';
    const fhash = st.targetHash(path);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const span = st.begin();
    if (span === undefined) return orig.apply(this, arguments as never);
    const enc = cbAt === 2 ? encodingOf(options) : undefined;
    const flags = cbAt === 2 ? optionsFlag(options) : undefined;
    const steps = isFd ? READ_FD : READ_PATH;
    const a = Array.prototype.slice.call(arguments);
    a[cbAt] = function (this: unknown, err: unknown, data: unknown) {
      let bytes: number | undefined;
      try {
        bytes = err ? undefined : resultBytes(data, enc);
      } catch (e) {
        st.fail(e);
      }
      recordFused(st, { steps, fhash, flags, mode: undefined, dfltFlag: 'r', bytes }, span.start, st.now(), err ? err : undefined, span);
      return (cb as AnyFn).apply(this, arguments as never);
    };
    try {
      return orig.apply(this, a as never);
    } catch (e) {
      recordFused(st, { steps, fhash, flags, mode: undefined, dfltFlag: 'r', bytes: undefined }, span.start, st.now(), e, span);
      throw e;
    }
  }, orig);
}

// ---------------------------------------------------------------- promises and FileHandle

/**
 * fs.promises.readFile / writeFile / appendFile(path | FileHandle, ...). `kind`: which helper.
 * Written as async functions, like the originals.
 */
export function wholeFilePromise(st: FsState, orig: AnyFn, kind: 'readFile' | 'writeFile' | 'appendFile'): AnyFn {
  const read = kind === 'readFile';
  const dfltFlag = kind === 'readFile' ? 'r' : kind === 'writeFile' ? 'w' : 'a';
  return promiseShaped(orig, (self, args) => {
    if (st.quiet !== 0) return orig.apply(self, args as never);
    const path = args[0];
    const handle = path !== null && typeof path === 'object' ? st.handles.get(path) : undefined;
    const fhash = handle !== undefined ? handle.fhash : st.pathHash(path);
    if (fhash === undefined) return orig.apply(self, args as never);
    const span = st.begin();
    if (span === undefined) return orig.apply(self, args as never);
    const options = read ? args[1] : args[2];
    let steps: readonly string[];
    if (read) steps = handle !== undefined ? READ_FD : READ_PATH;
    else steps = handle !== undefined ? WRITE_FD : optionsFlush(options) ? WRITE_FLUSH_PATH : WRITE_PATH;
    let wbytes: number | undefined;
    if (!read) {
      try {
        wbytes = dataBytes(args[1], encodingOf(options) ?? 'utf8');
      } catch (e) {
        st.fail(e);
      }
    }
    const plan = { steps, fhash, flags: optionsFlag(options), mode: read ? undefined : optionsMode(options), dfltFlag, bytes: wbytes };
    return settleFused(st, orig.apply(self, args as never) as Promise<unknown>, span, plan, read, options);
  });
}

/** Awaits a native whole-file promise and records its operations. */
async function settleFused(st: FsState, p: Promise<unknown>, span: Span, plan: Fused, read: boolean, options: unknown): Promise<unknown> {
  let result: unknown;
  try {
    result = await p;
  } catch (e) {
    recordFused(st, plan, span.start, st.now(), e, span);
    throw e;
  }
  let bytes = plan.bytes;
  if (read) {
    try {
      bytes = resultBytes(result, encodingOf(options));
    } catch (e) {
      st.fail(e);
    }
  }
  recordFused(st, { ...plan, bytes }, span.start, st.now(), undefined, span);
  return result;
}

/** FileHandle#readFile / writeFile / appendFile: the fd form of the helpers. */
export function wholeFileHandle(st: FsState, orig: AnyFn, kind: 'readFile' | 'writeFile' | 'appendFile'): AnyFn {
  const read = kind === 'readFile';
  const steps = read ? READ_FD : WRITE_FD;
  const m = {
    [kind](this: object, dataOrOptions: unknown, maybeOptions: unknown): unknown {
      const e = st.quiet === 0 ? st.handles.get(this) : undefined;
      if (e === undefined) return orig.apply(this, arguments as never);
      return tracedWholeFileHandle(st, orig, this, arguments, e.fhash, steps, read, read ? dataOrOptions : maybeOptions);
    },
  };
  return dress(m[kind]!, orig);
}

function tracedWholeFileHandle(st: FsState, orig: AnyFn, self: object, a: IArguments, fhash: string, steps: readonly string[], read: boolean, options: unknown): unknown {
  const span = st.begin();
  if (span === undefined) return orig.apply(self, a as never);
  let wbytes: number | undefined;
  if (!read) {
    try {
      wbytes = dataBytes(a[0], encodingOf(options) ?? 'utf8');
    } catch (e) {
      st.fail(e);
    }
  }
  const plan: Fused = { steps, fhash, flags: undefined, mode: undefined, dfltFlag: 'r', bytes: wbytes };
  return settleFused(st, orig.apply(self, a as never) as Promise<unknown>, span, plan, read, options);
}
