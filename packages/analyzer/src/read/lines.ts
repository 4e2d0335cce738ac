/**
 * Streaming access to a trace file's decompressed bytes. Gzip is detected by its magic bytes, not
 * by the file name; multi-member gzip (one member per tracer flush) is read through.
 * Decompression runs on libuv's thread pool, so it overlaps with work on the main thread.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip, type ZlibOptions } from 'node:zlib';

export interface ReadOutcome {
  /** Compressed (on-disk) bytes consumed. */
  bytesIn: number;
  /** Decompressed bytes produced. */
  bytesOut: number;
  gzip: boolean;
  /** Set when the gzip stream is truncated or corrupt; the chunks before it were delivered. */
  gzipError?: { kind: 'truncated' | 'corrupt'; message: string };
}

const CHUNK = 1 << 20;

/** True when the file starts with the gzip magic bytes. */
export async function isGzipFile(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Reads one file's content, decompressed, in chunks of about 1 MiB. */
export class TraceReader {
  readonly outcome: ReadOutcome = { bytesIn: 0, bytesOut: 0, gzip: false };

  constructor(
    readonly file: string,
    private readonly onProgress?: (bytesIn: number) => void,
    /** Bytes per chunk read and decompressed (default 1 MiB). */
    private readonly chunkBytes = CHUNK,
  ) {}

  /**
   * The decompressed chunks. A truncated or corrupt gzip stream ends the iteration and is
   * described in `outcome.gzipError`; unreadable files throw. Breaking out early closes the file.
   */
  async *chunks(): AsyncGenerator<Buffer> {
    const out = this.outcome;
    out.gzip = await isGzipFile(this.file);
    const input = createReadStream(this.file, { highWaterMark: this.chunkBytes });
    input.on('data', (b) => {
      out.bytesIn += b.length;
      this.onProgress?.(out.bytesIn);
    });
    if (!out.gzip) {
      try {
        for await (const chunk of input as AsyncIterable<Buffer>) {
          out.bytesOut += chunk.length;
          yield chunk;
        }
      } finally {
        input.destroy();
      }
      return;
    }
    // A high-water mark of several chunks keeps decompression running ahead of the consumer.
    const gunzip = createGunzip({ chunkSize: this.chunkBytes, highWaterMark: 8 * this.chunkBytes } as ZlibOptions);
    input.on('error', (e) => gunzip.destroy(e));
    input.pipe(gunzip);
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        out.bytesOut += chunk.length;
        yield chunk;
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (!err.code?.startsWith('Z_') && !/gzip|zlib|header check|end of file|invalid/i.test(err.message)) throw err;
      const truncated = err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message);
      out.gzipError = {
        kind: truncated ? 'truncated' : 'corrupt',
        message: truncated
          ? `truncated gzip: the stream ends inside a member after ${out.bytesOut} decompressed bytes (a crash or an interrupted copy?)`
          : `corrupt gzip data after ${out.bytesOut} decompressed bytes (${err.message})`,
      };
    } finally {
      input.destroy();
      gunzip.destroy();
    }
  }
}
