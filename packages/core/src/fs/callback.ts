/* eslint-disable prefer-rest-params -- see sync.ts */
import { dirname, resolve } from 'node:path';
import type { Args, Span } from '../types.js';
import { POSITIONED, io, parseAsyncTransfer } from './args.js';
import { dress, type AnyFn } from './identity.js';
import { toAbsolutePath } from './paths.js';
import { finishOp, target, type OpSpec } from './specs.js';
import type { FdEntry, FsState } from './state.js';
import { openArgs } from './sync.js';

/*
 * Callback wrappers. The span opens at the call; the event is written when Node calls back, just
 * before the user's callback runs (so the user's callback is not inside the event). The callback is
 * always the last argument; calls without one go to the original untouched (it throws the usual
 * error).
 */

/** A copy of the arguments with the callback (last) replaced. */
function withCallback(args: IArguments, cb: AnyFn): unknown[] {
  const a = Array.prototype.slice.call(args);
  a[a.length - 1] = cb;
  return a;
}

export function openCallback(st: FsState, orig: AnyFn): AnyFn {
  return dress(function open(this: unknown, path: unknown, flags: unknown, mode: unknown) {
    const cb = arguments[arguments.length - 1] as unknown;
    if (st.quiet !== 0 || typeof cb !== 'function') return orig.apply(this, arguments as never);
    const fhash = st.pathHash(path);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const span = st.begin();
    if (span === undefined) return orig.apply(this, arguments as never);
    const fl = typeof flags === 'function' ? undefined : flags;
    const md = typeof mode === 'function' ? undefined : mode;
    const a = withCallback(arguments, function (this: unknown, err: unknown, fd: unknown) {
      const ok = !err && typeof fd === 'number';
      if (ok) st.fds.set(fd, { fhash });
      st.end(span, 'open', openArgs(fhash, fl, md, ok ? fd : -1));
      return (cb as AnyFn).apply(this, arguments as never);
    });
    try {
      return orig.apply(this, a as never);
    } catch (e) {
      st.end(span, 'open', openArgs(fhash, fl, md, -1));
      throw e;
    }
  }, orig);
}

export function closeCallback(st: FsState, orig: AnyFn): AnyFn {
  return dress(function close(this: unknown, fd: number) {
    const e = st.quiet === 0 ? st.fds.get(fd) : undefined;
    // close(fd) without a callback is allowed (a default one logs errors): trace it too.
    if (e === undefined) return orig.apply(this, arguments as never);
    const span = st.begin();
    if (span === undefined) return orig.apply(this, arguments as never);
    const done = (err: unknown): void => {
      if (st.fds.get(fd) === e) st.fds.delete(fd);
      st.end(span, 'close', { fhash: e.fhash, ret: err ? -1 : 0 });
    };
    const cb = arguments[arguments.length - 1] as unknown;
    let a: unknown[];
    if (arguments.length >= 2 && typeof cb === 'function') {
      a = withCallback(arguments, function (this: unknown, err: unknown) {
        done(err);
        return (cb as AnyFn).apply(this, arguments as never);
      });
    } else if (arguments.length >= 2 && cb !== undefined) {
      return endOnThrow(st, span, orig, this, arguments, 'close', e); // invalid callback: Node throws
    } else {
      // Node's default callback rethrows errors asynchronously; keep that by passing none.
      a = [fd, (err: unknown) => {
        done(err);
        if (err) throw err;
      }];
    }
    try {
      return orig.apply(this, a as never);
    } catch (err) {
      done(err);
      throw err;
    }
  }, orig);
}

function endOnThrow(st: FsState, span: Span, orig: AnyFn, self: unknown, args: IArguments, name: string, e: FdEntry): unknown {
  try {
    return orig.apply(self, args as never);
  } finally {
    st.end(span, name, { fhash: e.fhash, ret: -1 });
  }
}

/** fs.read / fs.write / fs.readv / fs.writev. */
export function dataCallback(st: FsState, orig: AnyFn, kind: 'read' | 'write' | 'readv' | 'writev'): AnyFn {
  const positioned = POSITIONED[kind];
  return dress(function (this: unknown, fd: number) {
    const cb = arguments[arguments.length - 1] as unknown;
    const e = st.quiet === 0 && typeof cb === 'function' ? st.fds.get(fd) : undefined;
    if (e === undefined) return orig.apply(this, arguments as never);
    if (!parseAsyncTransfer(kind, arguments, 1, st)) return orig.apply(this, arguments as never);
    const count = io.count;
    const pos = io.pos;
    const span = st.begin();
    if (span === undefined) return orig.apply(this, arguments as never);
    const fhash = e.fhash;
    const args = (ret: number): Args => (pos < 0 ? { fhash, count, ret } : { fhash, count, offset: pos, ret });
    const a = withCallback(arguments, function (this: unknown, err: unknown, bytes: unknown) {
      st.end(span, pos < 0 ? kind : positioned, args(err ? -1 : typeof bytes === 'number' ? bytes : 0));
      return (cb as AnyFn).apply(this, arguments as never);
    });
    try {
      return orig.apply(this, a as never);
    } catch (err) {
      st.end(span, pos < 0 ? kind : positioned, args(-1));
      throw err;
    }
  }, orig);
}

/**
 * Every other callback operation: one event named by its spec. The synchronous part runs with
 * `quiet` raised; for rm, rmdir and realpath, whose inner calls continue after a tick, the path is
 * also scoped until the callback (FsState.scopes).
 */
export function genericCallback(st: FsState, orig: AnyFn, spec: OpSpec): AnyFn {
  const extraAt = spec.on === 'two' || spec.on === 'symlink' ? 2 : 1;
  return dress(function (this: unknown) {
    const n = arguments.length;
    const cb = arguments[n - 1] as unknown;
    if (st.quiet !== 0 || typeof cb !== 'function') return orig.apply(this, arguments as never);
    // truncate(fd, ...) (deprecated) is ftruncate: let that wrapper report it.
    if (spec.on === 'path' && typeof arguments[0] === 'number') return orig.apply(this, arguments as never);
    if (st.scopes.length !== 0 && spec.ev === 'readlink') {
      const r = followInScope(st, orig, this, arguments);
      if (r !== NOT_SCOPED) return r;
    }
    const fhash = target.of(st, spec, arguments);
    if (fhash === undefined) return orig.apply(this, arguments as never);
    const second = target.second;
    const span = st.begin();
    if (span === undefined) return orig.apply(this, arguments as never);
    const extra = n - 1 > extraAt ? (arguments[extraAt] as unknown) : undefined;
    const scope = spec.scoped === true ? st.scope(arguments[0]) : undefined;
    const finish = (ok: boolean, result: unknown): void => {
      st.unscope(scope);
      finishOp(st, spec, span, fhash, second, extra, ok, result);
    };
    const a = withCallback(arguments, function (this: unknown, err: unknown, result: unknown) {
      finish(!err, result);
      return (cb as AnyFn).apply(this, arguments as never);
    });
    st.quiet++;
    try {
      return orig.apply(this, a as never);
    } catch (e) {
      finish(false, undefined);
      throw e;
    } finally {
      st.quiet--;
    }
  }, orig);
}

const NOT_SCOPED = Symbol('not scoped');

/**
 * A readlink inside a realpath's scope: realpath goes on to lstat the link's target, which lies
 * outside the original path's scope, so the target joins the scope.
 */
function followInScope(st: FsState, orig: AnyFn, self: unknown, args: IArguments): unknown {
  const abs = toAbsolutePath(args[0]);
  const owner = abs === undefined ? undefined : st.scopeOf(abs);
  if (owner === undefined || abs === undefined) return NOT_SCOPED;
  const cb = args[args.length - 1] as AnyFn;
  return orig.apply(
    self,
    withCallback(args, function (this: unknown, err: unknown, link: unknown) {
      if (!err && (typeof link === 'string' || link instanceof Uint8Array)) {
        st.extendScope(owner, resolve(dirname(abs), typeof link === 'string' ? link : Buffer.from(link).toString('utf8')));
      }
      return cb.apply(this, arguments as never);
    }) as never,
  );
}
