import type { ArgValue, Args, EventShape, Span, Tracer } from '../types.js';
import { toAbsolutePath } from './paths.js';
import { countIo, ioDirection } from '../counters/io-counts.js';
import { DataLineage } from './data-lineage.js';

/** Every event of this plugin has this category (DFTracer's name for libc I/O). */
export const CAT = 'POSIX';

/** What an fd or FileHandle opened on a traced path maps to; its identity marks one open. */
export interface FdEntry {
  readonly fhash: string;
}

const ASYNC = Object.freeze({ async: true });

type ExitAt = (span: Span, name: string, cat: string, args: Args | undefined, end?: number) => void;

/**
 * The state of one installation of the fs plugin: the tracer, the fds and FileHandles opened on
 * traced paths, and the recursion guard. Wrappers close over one FsState; after teardown `quiet`
 * stays raised, so wrappers someone kept a reference to (`const { readSync } = require('fs')`)
 * pass straight through.
 */
export class FsState {
  /**
   * > 0 while inside a wrapped call whose inner fs calls belong to it (Node's readFile/rm/realpath...
   * implementations call the exported functions), and permanently after teardown: wrappers then
   * call the original and record nothing.
   */
  quiet = 0;
  /**
   * Counts the exported openSync/readSync/writeSync calls. A whole-file helper compares it before
   * and after to learn whether Node went through the exports (their wrappers recorded the real
   * operations) or did the work natively (the helper records the operations itself).
   */
  calls = 0;
  /** fd → entry, for fds returned by an open of a traced path; removed on close. */
  readonly fds = new Map<number, FdEntry>();
  /** FileHandle → entry, for handles returned by fs.promises.open of a traced path. */
  readonly handles = new WeakMap<object, FdEntry>();
  /**
   * Paths of in-flight async calls that are reported as one event (rm, rmdir, realpath callback and
   * promise forms): Node implements them with further exported calls on the path, its ancestors
   * and its descendants, some after a tick, where `quiet` no longer holds. Those calls are theirs.
   */
  readonly scopes: { readonly path: string; readonly owner: object }[] = [];
  /**
   * readFileSync (Buffer result) calls the exported openSync/readSync/closeSync, but sizes its
   * buffer with an fstat on the internal binding. The fstat is reported from the gap between the
   * open (or the call, for an fd) and the first read or close of that fd.
   */
  gapFd = -1;
  gapStart = 0;
  gapEnd = -1;
  private warned = false;
  /** `posix` is in the end event's `used` once this plugin wrote an event. */
  private marked = false;
  /** The directories this thread's traced I/O read and wrote (provenance). */
  readonly lineage = new DataLineage();
  /** Per event shape of this plugin: 1 read, 2 write, 0 other (the `io` counter's counts). */
  private readonly shapeDir: number[] = [];
  private readonly exitAt: ExitAt;
  /**
   * Whether `tracer.exit` takes an explicit end time as a fifth parameter. Without it an async
   * event always ends at the moment it is written, so zero-length markers can only be placed at
   * the end of a natively done call (see whole-file.ts).
   */
  readonly exactEnd: boolean;

  constructor(readonly tracer: Tracer) {
    this.exitAt = tracer.exit as ExitAt;
    this.exactEnd = tracer.exit.length >= 5;
  }

  /** The fhash of a path argument when I/O on it is traced, else undefined. Never throws. */
  /** The fhash of a whole-file call's target: a traced fd, or a traced path. */
  targetHash(p: unknown): string | undefined {
    return typeof p === 'number' ? this.fds.get(p)?.fhash : this.pathHash(p);
  }

  pathHash(p: unknown): string | undefined {
    const abs = toAbsolutePath(p);
    if (abs === undefined) return undefined;
    return this.absHash(abs);
  }

  absHash(abs: string): string | undefined {
    if (!this.tracedAbs(abs)) return undefined;
    try {
      const h = this.tracer.hashFile(abs);
      this.lineage.note(h, abs);
      return h;
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** Whether I/O on an absolute path is traced now (data dirs, not inside another call's scope). */
  tracedAbs(abs: string): boolean {
    if (this.scopes.length !== 0 && this.scopeOf(abs) !== undefined) return false;
    try {
      return this.tracer.isTraced(abs);
    } catch (e) {
      this.fail(e);
      return false;
    }
  }

  /** fhash for a path that is reported whether or not it is traced (the other side of a rename). */
  hashAlways(p: unknown): string | undefined {
    const abs = toAbsolutePath(p);
    if (abs === undefined) return undefined;
    try {
      return this.tracer.hashFile(abs);
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** The in-flight call whose scope covers abs (the path itself, an ancestor or a descendant). */
  scopeOf(abs: string): object | undefined {
    for (let i = 0; i < this.scopes.length; i++) {
      const { path: s, owner } = this.scopes[i]!;
      if (abs === s) return owner;
      if (abs.length > s.length ? abs.startsWith(s) && (s === '/' || abs.charCodeAt(s.length) === 47) : s.startsWith(abs) && (abs === '/' || s.charCodeAt(abs.length) === 47)) return owner;
    }
    return undefined;
  }

  /** Opens a scope for an in-flight async call; returns its owner token for `unscope`. */
  scope(p: unknown): object | undefined {
    const abs = toAbsolutePath(p);
    if (abs === undefined) return undefined;
    const owner = {};
    this.scopes.push({ path: abs, owner });
    return owner;
  }

  /** Adds a path to an open scope (realpath following a symlink to its target). */
  extendScope(owner: object, abs: string): void {
    if (this.scopes.some((x) => x.owner === owner)) this.scopes.push({ path: abs, owner });
  }

  unscope(owner: object | undefined): void {
    if (owner === undefined) return;
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i]!.owner === owner) this.scopes.splice(i, 1);
  }

  now(): number {
    try {
      return this.tracer.now();
    } catch (e) {
      this.fail(e);
      return 0;
    }
  }

  /** A sync operation measured by the caller, [t0, t1]. */
  emit(name: string, t0: number, t1: number, args: Args): void {
    try {
      this.tracer.emit(name, CAT, t0, t1 - t0, args);
      this.counted(ioDirection(name), args);
    } catch (e) {
      this.fail(e);
    }
  }

  /** An event shape of this plugin's category (hot sync wrappers; see Tracer.shape). */
  shape(name: string, keys: readonly string[]): EventShape {
    const shape = this.tracer.shape(name, CAT, keys);
    this.shapeDir[shape] = ioDirection(name);
    return shape;
  }

  /**
   * A sync data transfer (read, write, …) as an event of shape `atCurrent` (fhash, count, ret) or,
   * with a file position, `atOffset` (fhash, count, offset, ret), both made by `shape`. The times
   * are in `clock` ([start, end]) and the bytes asked for and the position (-1: none) in `call`:
   * the wrappers that call this cannot inline it (V8 spends their inlining budget on Node's own fs
   * function and its validators), and a double passed to a call not inlined is boxed, 16 bytes each.
   */
  emitTransfer(atCurrent: EventShape, atOffset: EventShape, clock: Float64Array, call: Float64Array, fhash: string, ret: number): void {
    try {
      const t0 = clock[0]!;
      const pos = call[1]!;
      if (pos < 0) this.tracer.emitShaped(atCurrent, t0, clock[1]! - t0, fhash, call[0]!, ret);
      else this.tracer.emitShaped(atOffset, t0, clock[1]! - t0, fhash, call[0]!, pos, ret);
      const dir = this.shapeDir[atCurrent] ?? 0;
      countIo(dir, ret);
      if (dir === 1) this.lineage.read(fhash);
      else if (dir === 2) this.lineage.wrote(fhash);
      if (!this.marked) this.markUsed();
    } catch (e) {
      this.fail(e);
    }
  }

  /** Opens an async span at the call; undefined if the tracer failed (the call goes on untraced). */
  begin(): Span | undefined {
    try {
      return this.tracer.enter(ASYNC);
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** Closes an async span: written now, or ending at `end` when given. */
  end(span: Span, name: string, args: Args, end?: number): void {
    try {
      if (end === undefined) this.tracer.exit(span, name, CAT, args);
      else this.exitAt.call(this.tracer, span, name, CAT, args, end);
      this.counted(ioDirection(name), args);
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * An async event whose bounds are known after the fact, [start, end], on a lane of its own; with
   * a tracer that cannot take the end (`exactEnd` false), a zero-length event now.
   */
  put(name: string, start: number, end: number, args: Args): void {
    try {
      if (this.exactEnd) {
        const span = this.tracer.enter({ async: true, start });
        this.exitAt.call(this.tracer, span, name, CAT, args, end);
      } else {
        const span = this.tracer.enter(ASYNC);
        this.tracer.exit(span, name, CAT, args);
      }
      this.counted(ioDirection(name), args);
    } catch (e) {
      this.fail(e);
    }
  }

  /** An event of direction `dir` (1 read, 2 write) written: the io counter, lineage, `used`. */
  private counted(dir: number, args: Args): void {
    countIo(dir, bytesOf(args));
    const fh = args.fhash;
    if (typeof fh === 'string') {
      if (dir === 1) this.lineage.read(fh);
      else if (dir === 2) this.lineage.wrote(fh);
    }
    if (!this.marked) this.markUsed();
  }

  private markUsed(): void {
    this.marked = true;
    this.tracer.markUsed('posix');
  }

  /** Tracing code must never throw into the program: the first failure is logged, all are skipped. */
  fail(e: unknown): void {
    if (this.warned) return;
    this.warned = true;
    try {
      this.tracer.log('WARN', `fs tracing skipped an event after an internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    } catch {
      // nothing left to report through
    }
  }
}

/** Bytes a transfer moved: its `ret` (-1 when it failed). */
function bytesOf(args: Args): number {
  const r = args.ret;
  return typeof r === 'number' ? r : 0;
}
