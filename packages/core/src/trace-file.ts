import * as fs from 'node:fs';
import { gzipSync } from 'node:zlib';

// The tracer's own writes use the functions as they were before any plugin wrapped them, so they
// are never traced and never disturbed by an instrumentation bug.
const { openSync, writeSync, closeSync, lstatSync, unlinkSync, mkdirSync, fsyncSync } = fs;
const { O_CREAT, O_EXCL, O_WRONLY, O_APPEND, O_NOFOLLOW } = fs.constants;

/**
 * State shared by every thread that writes into one process's file: the fd, a write lock and a
 * closed flag (Int32 slots 0 and 1), the next free id block and the count of written events
 * (BigInt64 slots 2 and 3).
 */
export interface SharedFile {
  readonly path: string;
  readonly fd: number;
  readonly compression: boolean;
  readonly level: number;
  readonly sab: SharedArrayBuffer;
}

const LOCK = 0;
const CLOSED = 1;
export const ID_SLOT = 2;
export const COUNT_SLOT = 3;

export class TraceFileError extends Error {
  override readonly name = 'DFTracerFileError';
}

/**
 * One process's trace file. Each `write` is one complete gzip member (or plain text) written with
 * one locked append, so a crash leaves whole members and threads never interleave.
 */
export class TraceFile {
  readonly i32: Int32Array;
  readonly i64: BigInt64Array;
  bytesWritten = 0;
  failed: string | null = null;

  private constructor(readonly shared: SharedFile) {
    this.i32 = new Int32Array(shared.sab, 0, 2);
    this.i64 = new BigInt64Array(shared.sab, 0, 4);
  }

  /** Creates the file exclusively, never through a symlink, mode 0644 less the umask. */
  static create(path: string, compression: boolean, level: number): TraceFile {
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
    const sab = new SharedArrayBuffer(32);
    return new TraceFile({ path, fd, compression, level, sab });
  }

  /** The same file, seen from another thread of the process. */
  static join(shared: SharedFile): TraceFile {
    return new TraceFile(shared);
  }

  get closed(): boolean {
    return Atomics.load(this.i32, CLOSED) === 1;
  }

  /** Appends text as one member; returns false (and remembers why) if the file is closed or failed. */
  write(text: string): boolean {
    if (this.failed !== null || text.length === 0) return this.failed === null;
    const data = this.shared.compression ? gzipSync(text, { level: this.shared.level }) : Buffer.from(text, 'utf8');
    this.lock();
    try {
      if (Atomics.load(this.i32, CLOSED) === 1) return false;
      let off = 0;
      while (off < data.length) off += writeSync(this.shared.fd, data, off, data.length - off);
      this.bytesWritten += data.length;
      return true;
    } catch (e) {
      this.failed = `${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`.trim();
      return false;
    } finally {
      this.unlock();
    }
  }

  /** Marks the file closed for every thread, then closes the fd (main thread only). */
  close(): void {
    this.lock();
    try {
      if (Atomics.load(this.i32, CLOSED) === 1) return;
      Atomics.store(this.i32, CLOSED, 1);
      try {
        fsyncSync(this.shared.fd);
      } catch {
        // fsync is best effort (pipes, some filesystems); the data is written either way.
      }
      closeSync(this.shared.fd);
    } finally {
      this.unlock();
    }
  }

  /** Adds n to a shared counter and returns the value before. */
  add(slot: number, n: number): number {
    return Number(Atomics.add(this.i64, slot, BigInt(n)));
  }

  load(slot: number): number {
    return Number(Atomics.load(this.i64, slot));
  }

  private lock(): void {
    while (Atomics.compareExchange(this.i32, LOCK, 0, 1) !== 0) Atomics.wait(this.i32, LOCK, 1, 5);
  }

  private unlock(): void {
    Atomics.store(this.i32, LOCK, 0);
    Atomics.notify(this.i32, LOCK, 1);
  }
}
