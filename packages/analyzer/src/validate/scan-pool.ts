/** Scanning chunks of whole lines for `validate`: on worker threads, or on the main thread. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LineScanner, type ChunkResult } from './line-scanner.js';

interface ScanJob {
  resolve: (r: ChunkResult) => void;
  reject: (e: Error) => void;
}

/** Size of chunk buffers: a decompressed chunk (1 MiB) plus room for a carried partial line. */
const CHUNK_ALLOC = (1 << 20) + (64 << 10);

/**
 * Scans chunks on worker threads, round-robin; results come back in submission order.
 * The workers hold the process open from the constructor to `close()` (`validateFiles` closes
 * it in a `finally`): unref-ing idle ones let a reply that came after `close()` undo
 * `terminate()`'s own ref, and the process ended, status 0, before the command had printed.
 */
export class ScanPool {
  private readonly workers: Worker[] = [];
  private readonly queues: ScanJob[][] = [];
  /** Why each worker can take no more chunks (it failed or stopped), once it cannot. */
  private readonly gone: Array<Error | undefined> = [];
  /** Every chunk in flight, the empty ones that start a file included: `close()` waits for them. */
  private readonly pending = new Set<Promise<ChunkResult>>();
  private closing = false;
  private next = 0;
  private readonly local: LineScanner | null;
  /** Chunk buffers back from the workers, for `buffer()` to reuse (less garbage to collect). */
  private readonly free: ArrayBuffer[] = [];

  /** `script`: the worker's module (default: the built `validate-worker.js` beside this one; none from sources). */
  constructor(threads: number, maxExamples = 3, script: URL | null = workerScript()) {
    if (threads > 0 && script) {
      for (let i = 0; i < threads; i++) {
        const w = new Worker(script, { workerData: { maxExamples } });
        const q: ScanJob[] = [];
        w.on('message', (m: { r: ChunkResult; buf: ArrayBuffer }) => {
          if (m.buf.byteLength > 0 && this.free.length < 16) this.free.push(m.buf);
          q.shift()?.resolve(m.r);
        });
        // a worker that fails or stops fails its chunks, and those sent to it later: never a reply that does not come
        const fail = (e: Error) => {
          this.gone[i] ??= e;
          for (const j of q.splice(0)) j.reject(this.gone[i]!);
        };
        w.on('error', fail);
        w.on('exit', (code) => fail(new Error(`validate: a scanning worker stopped (exit code ${code})`)));
        this.workers.push(w);
        this.queues.push(q);
      }
    }
    this.local = this.workers.length === 0 ? new LineScanner(maxExamples) : null;
  }

  get threads(): number {
    return this.workers.length;
  }

  /** Chunks sent to the workers and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** A buffer of `n` bytes to fill and hand to `scan()`: reused memory when there is some. */
  buffer(n: number): Uint8Array {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const ab = this.free[i]!;
      if (ab.byteLength >= n) {
        this.free.splice(i, 1);
        return new Uint8Array(ab, 0, n);
      }
    }
    return new Uint8Array(new ArrayBuffer(Math.max(n, CHUNK_ALLOC)), 0, n);
  }

  /** Chunks a caller may have in flight before awaiting the oldest (1 without workers: records are views). */
  get depth(): number {
    return this.local ? 1 : this.workers.length * 2;
  }

  /**
   * Scan `buf` (whole lines, ending with `\n`; its memory is handed over). `first`: it starts a
   * file, so every worker forgets the previous file's hashes first. Results resolve in order.
   */
  scan(buf: Uint8Array, first: boolean): Promise<ChunkResult> {
    if (this.closing) return Promise.reject(new Error('ScanPool.scan: the pool is closed'));
    if (this.local) {
      // scanned right here: the records are read before the next scan, the buffer is free again
      const r = this.local.scanChunk(buf, first, { copyRecords: false });
      if (buf.byteOffset === 0 && this.free.length < 4) this.free.push(buf.buffer as ArrayBuffer);
      return Promise.resolve(r);
    }
    // every worker must learn that a new file starts: tell them all with an empty chunk
    if (first) {
      for (let i = 1; i < this.workers.length; i++) void this.post((this.next + i) % this.workers.length, new Uint8Array(0), true);
    }
    const k = this.next;
    this.next = (this.next + 1) % this.workers.length;
    return this.post(k, buf, first);
  }

  private post(k: number, buf: Uint8Array, first: boolean): Promise<ChunkResult> {
    const p = new Promise<ChunkResult>((resolve, reject) => {
      const gone = this.gone[k];
      if (gone) return reject(gone);
      this.queues[k]!.push({ resolve, reject });
      this.workers[k]!.postMessage({ buf, first }, buf.byteLength > 0 ? [buf.buffer as ArrayBuffer] : []);
    });
    // also marks the rejection of an empty chunk nobody awaits as handled
    const settled = () => this.pending.delete(p);
    this.pending.add(p);
    p.then(settled, settled);
    return p;
  }

  /**
   * Wait for every chunk in flight, then stop the workers: no reply can come after `terminate()`,
   * and no result of a chunk sent is lost.
   */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.pending]);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** The built worker script next to this module, if there is one (not when running from sources). */
function workerScript(): URL | null {
  try {
    const url = new URL('./validate-worker.js', import.meta.url);
    return existsSync(fileURLToPath(url)) ? url : null;
  } catch {
    return null;
  }
}
