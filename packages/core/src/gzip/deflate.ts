import { gzipSync } from 'node:zlib';
import { isMainThread } from 'node:worker_threads';
import { jsGzip } from './js-gzip.js';

/** Bytes → one gzip member at `level` (1–9). */
export type Deflate = (data: Uint8Array, level: number) => Buffer;

/** Node's zlib: only on threads never terminated mid-call (js-gzip.ts says why). */
export const zlibDeflate: Deflate = (data, level) => gzipSync(data, { level });

/** JavaScript gzip (zlib -1's strategy at every level): safe on a thread terminated at any instruction. */
export const jsDeflate: Deflate = (data) => jsGzip(data);

/**
 * The compressor for this thread's own writes: zlib on the main thread (nothing terminates it but
 * the process's own end), JavaScript on worker threads, which the program may terminate at any
 * instruction. The writer thread, whose batches the main thread drains before exit, uses zlib.
 */
export function threadDeflate(): Deflate {
  return isMainThread ? zlibDeflate : jsDeflate;
}
