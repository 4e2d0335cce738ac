/**
 * Outputs written safely, for every command that writes a file (merge, export, report): the data
 * goes to a temporary file beside the target (same directory, so the rename cannot cross file
 * systems), which is renamed over the target only once complete. An error, Ctrl-C or SIGTERM
 * removes the temporary file, so nothing half-written ever sits under the final name (and with
 * --force an older target stays as it was until the new one is whole). Write errors become one
 * line naming the output.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import { UserError } from '../errors.js';

/** Temporary files being written; removed on SIGINT, SIGTERM and exit. */
const live = new Set<string>();
let handlersInstalled = false;

function removeLive(): void {
  for (const f of live) {
    try {
      rmSync(f, { force: true });
    } catch {
      /* nothing more can be done while exiting */
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  removeLive();
  uninstall();
  // the default action (exit with 128 + signal), now that our listener is gone
  process.kill(process.pid, signal);
}

function install(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', removeLive);
}

/** Listeners only while an output is being written: a library user's own signal handling is theirs. */
function uninstall(): void {
  if (!handlersInstalled || live.size > 0) return;
  handlersInstalled = false;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('exit', removeLive);
}

/** What went wrong writing `target`, in words. */
function reason(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'its directory does not exist';
    case 'ENOTDIR':
      return 'a part of its path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EISDIR':
      return 'it is a directory';
    case 'EFBIG':
      return 'file too large';
    case 'EIO':
      return 'I/O error';
    default:
      return String(e.message ?? e).split('\n')[0]!;
  }
}

/** A write error as one line naming the output (a UserError as it is). */
export function outputError(label: string, target: string, e: unknown): Error {
  if (e instanceof UserError) return e;
  const err = e as NodeJS.ErrnoException;
  return new UserError(`${label}: cannot write ${target}: ${reason(err)}${err.code ? ` (${err.code})` : ''}`);
}

/** The same file on disk (hard links and symlinks included), or false when either does not exist. */
function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/**
 * Refuse an output that is also an input (writing it would destroy the data being read) or that
 * exists without `force`.
 */
export function checkOutputTarget(label: string, target: string, inputs: string[], force: boolean): void {
  const abs = resolve(target);
  for (const f of inputs) {
    if (resolve(f) === abs || sameFile(f, target)) throw new UserError(`${label}: the output ${target} is also an input; write it elsewhere`, 2);
  }
  let isDir = false;
  try {
    isDir = statSync(target).isDirectory();
  } catch {
    return; // does not exist yet
  }
  if (isDir) throw new UserError(`${label}: the output ${target} is a directory`, 2);
  if (!force) throw new UserError(`${label}: ${target} exists (use --force to overwrite)`, 2);
}

/** A file being written: `path` is the temporary file; `commit()` renames it to `target`. */
export class OutputFile {
  private done = false;
  private position = 0;

  private constructor(
    readonly label: string,
    readonly target: string,
    /** The temporary file beside the target, created empty. */
    readonly path: string,
    private fh: FileHandle | null,
  ) {}

  /**
   * Create the temporary file beside `target` now, so a missing or unwritable directory is said
   * at once rather than after the work. `label` names the command in error messages.
   */
  static async create(label: string, target: string): Promise<OutputFile> {
    const dir = dirname(resolve(target));
    const path = join(dir, `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.part`);
    install();
    live.add(path);
    try {
      const fh = await open(path, 'wx', 0o644);
      return new OutputFile(label, target, path, fh);
    } catch (e) {
      live.delete(path);
      uninstall();
      throw outputError(label, target, e);
    }
  }

  /** Append bytes (sequentially) to the temporary file. */
  async write(data: Uint8Array | string): Promise<void> {
    const fh = this.fh;
    if (!fh) throw new Error(`${this.label}: ${this.target} is already closed`);
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    try {
      let off = 0;
      while (off < b.length) {
        const { bytesWritten } = await fh.write(b, off, b.length - off, this.position);
        off += bytesWritten;
        this.position += bytesWritten;
      }
    } catch (e) {
      throw outputError(this.label, this.target, e);
    }
  }

  /** A gzip stream into this file (one member); `end()` it before `commit()`. */
  gzip(level = 6): GzipWriter {
    return new GzipWriter(this, level);
  }

  /** Close the file handle (for writers that reopen `path` themselves, such as DuckDB). */
  async closeHandle(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    if (fh) {
      try {
        await fh.close();
      } catch (e) {
        throw outputError(this.label, this.target, e);
      }
    }
  }

  /** The output is complete: close it and rename it over the target. */
  async commit(): Promise<void> {
    try {
      await this.closeHandle();
      await rename(this.path, this.target);
    } catch (e) {
      await this.discard();
      throw outputError(this.label, this.target, e);
    }
    this.finish();
  }

  /** Give up: remove the temporary file (the target is left as it was). */
  async discard(): Promise<void> {
    if (this.done) return;
    try {
      await this.fh?.close();
    } catch {
      /* the write already failed */
    }
    this.fh = null;
    await rm(this.path, { force: true });
    this.finish();
  }

  private finish(): void {
    this.done = true;
    live.delete(this.path);
    uninstall();
  }
}

/**
 * Write an output through `body`, then commit it; on any error the temporary file is removed and
 * the error, if it came from the file system, becomes one line naming the target.
 */
export async function writeOutput<T>(label: string, target: string, body: (out: OutputFile) => Promise<T>): Promise<T> {
  const out = await OutputFile.create(label, target);
  try {
    const r = await body(out);
    await out.commit();
    return r;
  } catch (e) {
    await out.discard();
    // a file-system error on the temporary file (a writer that opened it itself), not on an input
    const err = e as NodeJS.ErrnoException;
    throw typeof err?.code === 'string' && err.path === out.path ? outputError(label, target, e) : e;
  }
}

/** Streaming gzip into an `OutputFile`, with backpressure; errors reach `write` and `end`. */
export class GzipWriter {
  private readonly gz: Gzip;
  private readonly pump: Promise<void>;

  constructor(out: OutputFile, level: number) {
    this.gz = createGzip({ level });
    const gz = this.gz;
    this.pump = (async () => {
      for await (const chunk of gz) await out.write(chunk as Buffer);
    })();
    this.pump.catch(() => {}); // observed by write() and end()
  }

  async write(data: string | Uint8Array): Promise<void> {
    if (!this.gz.write(data)) await Promise.race([once(this.gz, 'drain'), this.pump]);
  }

  async end(): Promise<void> {
    this.gz.end();
    await this.pump;
  }

  destroy(): void {
    this.gz.destroy();
  }
}
