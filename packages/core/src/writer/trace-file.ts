import * as fs from 'node:fs';
import { getSystemErrorName } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { ENCODER_STATS_BYTES, EncoderStats, type Encoding } from '../gzip/index.js';
import { lockOwner, ownerDead } from './lock-owner.js';

// The tracer's own writes use the functions as they were before any plugin wrapped them, so they
// are never traced and never disturbed by an instrumentation bug.
const { openSync, writeSync, closeSync, fstatSync, ftruncateSync, lstatSync, unlinkSync, mkdirSync, fsyncSync } = fs;
const { O_CREAT, O_EXCL, O_WRONLY, O_APPEND, O_NOFOLLOW } = fs.constants;

/**
 * State shared by every thread that writes into one process's file: the fd and its identity
 * (device and inode, checked before each write), and a SharedArrayBuffer holding
 * - Int32 at byte 0: the write lock (its holder: lock-owner.ts), the closed flag, the failure code;
 * - BigInt64 slots 2 and 3: the next free id block and the count of written events;
 * - Int32 at byte 32: whether a failure has been reported, whether the fd is closed;
 * - BigInt64 slot 6: the bytes written and counted (COMMITTED_SLOT);
 * - BigInt64 slots 7–9: the write in progress (PENDING_END, PENDING_COUNT, PENDING_EVENTS).
 * Every thread encodes its batches as `encoding` says (one file, one format) and counts them in
 * `encoderStats`.
 */
export interface SharedFile {
  readonly path: string;
  readonly fd: number;
  readonly encoding: Encoding;
  readonly sab: SharedArrayBuffer;
  readonly encoderStats: SharedArrayBuffer;
  readonly dev: bigint;
  readonly ino: bigint;
}

const LOCK = 0;
/** 0 open; SEALED: only the creating thread still writes (the last events, `end`); 1 closed. */
const CLOSED = 1;
const SEALED = 2;
const FAILED = 2;
export const ID_SLOT = 2;
/** Ids are handed out to threads in blocks (ID_SLOT counts them) so threads of one file never share an id. */
export const ID_BLOCK = 4096;
export const COUNT_SLOT = 3;
/**
 * The file's length after the last complete, counted write. A worker thread terminated inside a
 * write leaves bytes beyond it (part of a member, or a member it never counted): the next write
 * cuts them off, as that batch is counted lost, so `end.num_events` matches the file.
 */
export const COMMITTED_SLOT = 6;
/**
 * The write in progress, so that a thread terminated between its commit and its count (two
 * stores) leaves nothing half done: the file's end once it is written, the count before it, and
 * its events. PENDING_END is stored last and cleared first; 0: none. The next holder of the lock
 * finishes the count if the bytes were committed (recover).
 */
export const PENDING_END = 7;
export const PENDING_COUNT = 8;
export const PENDING_EVENTS = 9;
const SAB_BYTES = 80;
const REPORTED = 0;
const FD_CLOSED = 1;
const ONCE = 2;
/** Warnings given once per process, whichever thread meets the case first: bit i of the ONCE word. */
const ONCE_KEYS = ['truncated', 'encoder'];
/** Integrations a worker thread may mark used (Tracer.markUsed): bit i of the USED word, read for `end`. */
const USED = 3;
export const SHARED_USED_NAMES = ['posix', 'counters', 'ai', 'dynamo', 'profiler', 'tfjs'];

/** FAILED codes that are not errnos. */
const FD_REPLACED = 1_000_000;
const UNKNOWN_ERROR = 1_000_001;

/**
 * A lock held this long by the same owner is taken over even where the owner cannot be seen to be
 * dead (lock-owner.ts): a live owner holds the lock for one write(2) of one member.
 */
export const LOCK_STALE_MS = 2000;
/** How long a waiter sleeps before it looks again whether the holder still lives. */
const LOCK_WAIT_MS = 5;

export class TraceFileError extends Error {
  override readonly name = 'DFTracerFileError';
}

/**
 * One process's trace file. Each `write` is one complete gzip member (or plain text) written with
 * one locked append, so a crash leaves whole members and threads never interleave. A write error
 * (disk full, EIO, a descriptor the program closed) stops writing for every thread of the process;
 * the descriptor is never written once closed, and never if it no longer refers to the trace file.
 */
export class TraceFile {
  readonly i32: Int32Array;
  readonly i64: BigInt64Array;
  private readonly flags: Int32Array;
  /** How the process's batches were encoded (the `end` event reports it). */
  readonly encoderStats: EncoderStats;
  bytesWritten = 0;
  private localFailure: string | null = null;

  private constructor(
    readonly shared: SharedFile,
    /** Created the file (the main thread): writes the last events after seal(). */
    private readonly owner: boolean,
  ) {
    this.i32 = new Int32Array(shared.sab, 0, 4);
    this.i64 = new BigInt64Array(shared.sab, 0, SAB_BYTES / 8);
    this.flags = new Int32Array(shared.sab, 32, 4);
    this.encoderStats = new EncoderStats(shared.encoderStats);
  }

  /** Creates the file exclusively, never through a symlink, mode 0644 less the umask. */
  static create(path: string, encoding: Encoding): TraceFile {
    const dir = path.slice(0, path.lastIndexOf('/'));
    if (dir) mkdirSync(dir, { recursive: true });
    let fd: number;
    try {
      fd = openSync(path, O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_NOFOLLOW, 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A stale trace of an earlier process with the same pid is replaced; a planted symlink is not followed.
      if (lstatSync(path).isSymbolicLink()) throw new TraceFileError(`${path} is a symbolic link; refusing to write a trace through it`);
      unlinkSync(path);
      fd = openSync(path, O_CREAT | O_EXCL | O_WRONLY | O_APPEND | O_NOFOLLOW, 0o644);
    }
    let st: fs.BigIntStats;
    try {
      st = fstatSync(fd, { bigint: true });
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    const sab = new SharedArrayBuffer(SAB_BYTES);
    return new TraceFile({ path, fd, encoding, sab, encoderStats: new SharedArrayBuffer(ENCODER_STATS_BYTES), dev: st.dev, ino: st.ino }, true);
  }

  /** Whether writing the file has failed for the whole process. */
  static failedFor(shared: SharedFile): boolean {
    return Atomics.load(new Int32Array(shared.sab, 0, 4), FAILED) !== 0;
  }

  /** Whether a thread may still join the file: neither closed (nor sealed) nor failed. */
  static joinable(shared: SharedFile): boolean {
    const i32 = new Int32Array(shared.sab, 0, 4);
    return Atomics.load(i32, CLOSED) === 0 && Atomics.load(i32, FAILED) === 0;
  }

  /** The same file, seen from another thread of the process. */
  static join(shared: SharedFile): TraceFile {
    return new TraceFile(shared, false);
  }

  /** Whether this thread can no longer write (finalized, sealed for the owner's last events, or failed). */
  get closed(): boolean {
    const c = Atomics.load(this.i32, CLOSED);
    return c === 1 || (c === SEALED && !this.owner);
  }

  /** Why writing stopped (in this thread or another), or null while the file is healthy. */
  get failed(): string | null {
    if (this.localFailure !== null) return this.localFailure;
    const code = Atomics.load(this.i32, FAILED);
    return code === 0 ? null : describeFailure(code);
  }

  /** True for exactly one caller per process once writing has failed: that caller warns the user. */
  claimReport(): boolean {
    return Atomics.load(this.i32, FAILED) !== 0 && Atomics.compareExchange(this.flags, REPORTED, 0, 1) === 0;
  }

  /** Records that an integration of SHARED_USED_NAMES produced events in some thread (others: no-op). */
  markUsed(name: string): void {
    const i = SHARED_USED_NAMES.indexOf(name);
    if (i >= 0) Atomics.or(this.flags, USED, 1 << i);
  }

  /** The SHARED_USED_NAMES any thread of the process marked. */
  usedNames(): string[] {
    const bits = Atomics.load(this.flags, USED);
    return SHARED_USED_NAMES.filter((_, i) => (bits & (1 << i)) !== 0);
  }

  /**
   * For a warning that must appear once per process (not once per thread): true for the first
   * caller only. Keys not listed in ONCE_KEYS are not deduplicated across threads.
   */
  claimOnce(key: string): boolean {
    const i = ONCE_KEYS.indexOf(key);
    if (i < 0) return true;
    const bit = 1 << i;
    return (Atomics.or(this.flags, ONCE, bit) & bit) === 0;
  }

  /**
   * Appends one flush's bytes (a gzip member, or plain lines: gzip/batch-encoder.ts) and adds `events`
   * to the shared count in the same critical section (so `end.num_events` is exact); returns false
   * if the file is closed or has failed.
   */
  write(data: Buffer, events = 0): boolean {
    if (this.failed !== null) return false;
    if (data.length === 0) return true;
    if (this.closed) return false;
    const ticket = this.lock();
    try {
      if (this.closed || Atomics.load(this.i32, FAILED) !== 0) return false;
      const size = this.ourSize();
      if (size === null) {
        // The program closed our descriptor (and may have opened something else under its number):
        // it is not ours to write or close any more.
        this.fail(FD_REPLACED, `descriptor ${this.shared.fd} was closed or no longer refers to the trace file`, false);
        return false;
      }
      const i64 = this.i64;
      const committed = Atomics.load(i64, COMMITTED_SLOT);
      if (size > committed) ftruncateSync(this.shared.fd, Number(committed));
      const end = committed + BigInt(data.length);
      Atomics.store(i64, PENDING_COUNT, Atomics.load(i64, COUNT_SLOT));
      Atomics.store(i64, PENDING_EVENTS, BigInt(events));
      Atomics.store(i64, PENDING_END, end);
      let off = 0;
      while (off < data.length) off += writeSync(this.shared.fd, data, off, data.length - off);
      this.bytesWritten += data.length;
      Atomics.store(i64, COMMITTED_SLOT, end);
      if (events !== 0) Atomics.add(i64, COUNT_SLOT, BigInt(events));
      Atomics.store(i64, PENDING_END, 0n);
      return true;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'EBADF') {
        // We never close the descriptor while the file is open, so the program closed it between
        // the identity check and the write: the same case as a replaced descriptor.
        this.fail(FD_REPLACED, `descriptor ${this.shared.fd} was closed by the program`, false);
        return false;
      }
      this.fail(typeof err.errno === 'number' && err.errno < 0 ? -err.errno : UNKNOWN_ERROR, `${err.code ?? ''} ${err.message}`.trim(), true);
      return false;
    } finally {
      this.unlock(ticket);
    }
  }

  /**
   * The program is closing our descriptor (trace-fd-guard.ts): stop every thread's writes first,
   * under the lock, so none can be between its identity check and its write when the number is
   * reused. The descriptor is the program's to close now, not ours.
   */
  surrender(): void {
    const ticket = this.lock();
    try {
      if (Atomics.load(this.i32, FAILED) === 0 && !this.closed) this.fail(FD_REPLACED, `descriptor ${this.shared.fd} was closed by the program`, false);
      else Atomics.store(this.flags, FD_CLOSED, 1);
    } finally {
      this.unlock(ticket);
    }
  }

  /**
   * From now on only the owner writes: other threads' later events are dropped, so the owner's
   * `end` is the last line and its num_events counts everything before it.
   */
  seal(): void {
    const ticket = this.lock();
    Atomics.compareExchange(this.i32, CLOSED, 0, SEALED);
    this.unlock(ticket);
  }

  /** Marks the file closed for every thread, then closes the fd (main thread only). */
  close(): void {
    const ticket = this.lock();
    try {
      const wasOpen = Atomics.exchange(this.i32, CLOSED, 1) === 0;
      if (wasOpen) {
        try {
          if (this.stillOurs()) fsyncSync(this.shared.fd);
        } catch {
          // fsync is best effort (pipes, some filesystems); the data is written either way.
        }
      }
      this.closeFd();
    } finally {
      this.unlock(ticket);
    }
  }

  /**
   * Closes the fd once, from the main thread only (Node warns when a worker closes a descriptor
   * it did not open), and only while it is still ours.
   */
  private closeFd(): void {
    if (!isMainThread || Atomics.load(this.flags, FD_CLOSED) === 1) return;
    Atomics.store(this.flags, FD_CLOSED, 1);
    if (!this.stillOurs()) return;
    try {
      closeSync(this.shared.fd);
    } catch {
      // Nothing more to lose.
    }
  }

  /** Adds n to a shared counter and returns the value before. */
  add(slot: number, n: number): number {
    return Number(Atomics.add(this.i64, slot, BigInt(n)));
  }

  load(slot: number): number {
    return Number(Atomics.load(this.i64, slot));
  }

  /** Whether the fd still refers to the file we created (the program may have closed and reused it). */
  private stillOurs(): boolean {
    return this.ourSize() !== null;
  }

  /** The file's length while the fd still refers to our file, else null. */
  private ourSize(): bigint | null {
    try {
      const st = fstatSync(this.shared.fd, { bigint: true });
      return st.ino === this.shared.ino && st.dev === this.shared.dev ? st.size : null;
    } catch {
      return null;
    }
  }

  /**
   * Called with the lock held: records why and stops every thread. The fd is closed now from the
   * main thread, else by finalize; a descriptor that is no longer ours is left alone.
   */
  private fail(code: number, message: string, closeFd: boolean): void {
    this.localFailure = message;
    Atomics.compareExchange(this.i32, FAILED, 0, code);
    Atomics.store(this.i32, CLOSED, 1);
    if (closeFd) this.closeFd();
    else Atomics.store(this.flags, FD_CLOSED, 1);
  }

  /**
   * Takes the lock; returns the ticket that unlocks it. A holder that died (a worker thread
   * terminated between lock and unlock: termination skips `finally`) is seen dead within
   * LOCK_WAIT_MS and its lock taken over; where that cannot be seen, after LOCK_STALE_MS.
   */
  private lock(): number {
    const me = lockOwner();
    let holder = 0;
    let since = 0;
    for (;;) {
      const cur = Atomics.compareExchange(this.i32, LOCK, 0, me);
      if (cur === 0) break;
      if (cur !== holder) {
        holder = cur;
        since = Date.now();
      }
      if ((ownerDead(cur) || Date.now() - since > LOCK_STALE_MS) && Atomics.compareExchange(this.i32, LOCK, cur, me) === cur) break;
      Atomics.wait(this.i32, LOCK, cur, LOCK_WAIT_MS);
    }
    this.recover();
    return me;
  }

  /** Under the lock: finishes the count of a write whose thread died after committing it (PENDING_END). */
  private recover(): void {
    const i64 = this.i64;
    const end = Atomics.load(i64, PENDING_END);
    if (end === 0n) return;
    if (Atomics.load(i64, COMMITTED_SLOT) === end && Atomics.load(i64, COUNT_SLOT) === Atomics.load(i64, PENDING_COUNT)) Atomics.add(i64, COUNT_SLOT, Atomics.load(i64, PENDING_EVENTS));
    Atomics.store(i64, PENDING_END, 0n);
  }

  private unlock(ticket: number): void {
    // A lock taken over from us is no longer ours to release.
    if (Atomics.compareExchange(this.i32, LOCK, ticket, 0) === ticket) Atomics.notify(this.i32, LOCK, 1);
  }
}

function describeFailure(code: number): string {
  if (code === FD_REPLACED) return 'the trace file descriptor was closed or replaced by the program';
  if (code === UNKNOWN_ERROR) return 'a write error';
  try {
    return getSystemErrorName(-code);
  } catch {
    return `error ${code}`;
  }
}
