/* eslint-disable prefer-rest-params -- see sync.ts */
import type { Span } from '../types.js';
import { POSITIONED, io, parseAsyncTransfer } from './args.js';
import { dress, promiseShaped, type AnyFn } from './identity.js';
import { finishOp, target, type OpSpec } from './specs.js';
import type { FdEntry, FsState } from './state.js';
import { openArgs } from './sync.js';

/*
 * fs/promises and FileHandle wrappers. fs/promises functions are async functions and so are their
 * wrappers (same `util.types.isAsyncFunction`, no `prototype`); FileHandle methods are plain
 * methods returning a promise, and so are theirs. The span opens at the call and the event is
 * written when the operation settles, before the caller's `await` resumes.
 */

/** What the plugin does with the first FileHandle it sees: patch the class (see plugin.ts). */
export type HandleClassHook = (handle: object) => void;

interface HandleLike {
  readonly fd: number;
  close: AnyFn;
}

export function openPromise(st: FsState, orig: AnyFn, onHandle: HandleClassHook, registry: FinalizationRegistry<{ fd: number; entry: FdEntry }>): AnyFn {
  return promiseShaped(orig, (self, args) => {
    if (st.quiet !== 0) return orig.apply(self, args as never);
    const fhash = st.pathHash(args[0]);
    if (fhash === undefined) return openUntraced(st, orig.apply(self, args as never) as Promise<HandleLike>, onHandle);
    const span = st.begin();
    if (span === undefined) return orig.apply(self, args as never);
    return openTraced(st, orig.apply(self, args as never) as Promise<HandleLike>, span, fhash, args[1], args[2], onHandle, registry);
  });
}

async function openUntraced(st: FsState, p: Promise<HandleLike>, onHandle: HandleClassHook): Promise<HandleLike> {
  const h = await p;
  onHandle(h);
  st.fds.delete(h.fd); // this fd number no longer means an earlier traced file
  return h;
}

async function openTraced(st: FsState, p: Promise<HandleLike>, span: Span, fhash: string, flags: unknown, mode: unknown, onHandle: HandleClassHook, registry: FinalizationRegistry<{ fd: number; entry: FdEntry }>): Promise<HandleLike> {
  let h: HandleLike;
  try {
    h = await p;
  } catch (e) {
    st.end(span, 'open', openArgs(fhash, flags, mode, -1));
    throw e;
  }
  try {
    onHandle(h);
    const entry: FdEntry = { fhash };
    const fd = h.fd;
    st.fds.set(fd, entry);
    st.handles.set(h, entry);
    registry.register(h, { fd, entry }, entry);
    h.close = tracedClose(st, h, h.close, entry, registry);
  } catch (e) {
    st.fail(e);
  }
  st.end(span, 'open', openArgs(fhash, flags, mode, h.fd));
  return h;
}

/**
 * FileHandle#close is an own arrow-function property (a class field), not a prototype method, so a
 * traced handle gets its own wrapper. It keeps the arrow's behaviour: `this` does not matter.
 */
function tracedClose(st: FsState, h: HandleLike, orig: AnyFn, entry: FdEntry, registry: FinalizationRegistry<unknown>): AnyFn {
  let closing = false;
  const close = (): unknown => {
    const fd = h.fd;
    if (st.quiet !== 0 || closing || fd === -1) return orig();
    const span = st.begin();
    if (span === undefined) return orig();
    closing = true;
    const done = (ret: number): void => {
      if (st.fds.get(fd) === entry) st.fds.delete(fd);
      st.handles.delete(h);
      registry.unregister(entry);
      st.end(span, 'close', { fhash: entry.fhash, ret });
    };
    return (orig() as Promise<unknown>).then(
      (v) => {
        done(0);
        return v;
      },
      (e: unknown) => {
        done(-1);
        throw e;
      },
    );
  };
  return dress(close, orig);
}

/** Every other fs/promises operation: one event named by its spec. */
export function genericPromise(st: FsState, orig: AnyFn, spec: OpSpec): AnyFn {
  const extraAt = spec.on === 'two' || spec.on === 'symlink' ? 2 : 1;
  return promiseShaped(orig, (self, args) => {
    if (st.quiet !== 0) return orig.apply(self, args as never);
    const fhash = target.of(st, spec, args);
    if (fhash === undefined) return orig.apply(self, args as never);
    const second = target.second;
    const span = st.begin();
    if (span === undefined) return orig.apply(self, args as never);
    const scope = spec.scoped === true ? st.scope(args[0]) : undefined;
    let p: Promise<unknown>;
    st.quiet++;
    try {
      p = orig.apply(self, args as never) as Promise<unknown>;
    } finally {
      st.quiet--;
    }
    return settleOp(st, p, span, spec, fhash, second, args[extraAt], scope);
  });
}

async function settleOp(st: FsState, p: Promise<unknown>, span: Span, spec: OpSpec, fhash: string, second: string | undefined, extra: unknown, scope: object | undefined): Promise<unknown> {
  let result: unknown;
  try {
    result = await p;
  } catch (e) {
    st.unscope(scope);
    finishOp(st, spec, span, fhash, second, extra, false, undefined);
    throw e;
  }
  st.unscope(scope);
  finishOp(st, spec, span, fhash, second, extra, true, result);
  return result;
}

/** FileHandle#stat/truncate/sync/datasync/chmod/chown/utimes: fstat, ftruncate, ... */
export function handleOp(st: FsState, orig: AnyFn, spec: OpSpec, name: string): AnyFn {
  const m = {
    [name](this: object): unknown {
      const e = st.quiet === 0 ? st.handles.get(this) : undefined;
      if (e === undefined) return orig.apply(this, arguments as never);
      const span = st.begin();
      if (span === undefined) return orig.apply(this, arguments as never);
      return settle(st, orig.apply(this, arguments as never) as Promise<unknown>, span, spec, e.fhash, arguments[0]);
    },
  };
  return dress(m[name]!, orig);
}

async function settle(st: FsState, p: Promise<unknown>, span: Span, spec: OpSpec, fhash: string, extra: unknown): Promise<unknown> {
  let result: unknown;
  try {
    result = await p;
  } catch (e) {
    finishOp(st, spec, span, fhash, undefined, extra, false, undefined);
    throw e;
  }
  finishOp(st, spec, span, fhash, undefined, extra, true, result);
  return result;
}

/** FileHandle#read/write/readv/writev: read or pread etc. with count, offset, ret. */
export function handleData(st: FsState, orig: AnyFn, kind: 'read' | 'write' | 'readv' | 'writev'): AnyFn {
  const positioned = POSITIONED[kind];
  const m = {
    [kind](this: object): unknown {
      const e = st.quiet === 0 ? st.handles.get(this) : undefined;
      if (e === undefined) return orig.apply(this, arguments as never);
      if (!parseAsyncTransfer(kind, arguments, 0, st)) return orig.apply(this, arguments as never);
      const count = io.count;
      const pos = io.pos;
      const span = st.begin();
      if (span === undefined) return orig.apply(this, arguments as never);
      return settleData(st, orig.apply(this, arguments as never) as Promise<unknown>, span, pos < 0 ? kind : positioned, e.fhash, count, pos, kind === 'read' || kind === 'readv');
    },
  };
  return dress(m[kind]!, orig);
}

async function settleData(st: FsState, p: Promise<unknown>, span: Span, name: string, fhash: string, count: number, pos: number, read: boolean): Promise<unknown> {
  let ret = -1;
  try {
    const r = (await p) as { bytesRead?: unknown; bytesWritten?: unknown } | null;
    const n = read ? r?.bytesRead : r?.bytesWritten;
    ret = typeof n === 'number' ? n : 0;
    return r;
  } finally {
    st.end(span, name, pos < 0 ? { fhash, count, ret } : { fhash, count, offset: pos, ret });
  }
}
