import type { EventColumns } from '../recording/columns.js';
import type { FormatContext } from '../format/format-events.js';
import { EventBytes } from '../format/event-bytes.js';
import type { GzipEncoder } from '../types.js';
import { EncoderStats } from './encoder-stats.js';
import { zlibDeflate, type Deflate } from './deflate.js';

/** How a file's batches are written (DFTRACER_TRACE_COMPRESSION, _COMPRESSION_LEVEL, _GZIP_ENCODER). */
export interface Encoding {
  readonly compression: boolean;
  /** 1–9, zlib's level. */
  readonly level: number;
  readonly gzipEncoder: GzipEncoder;
}

/**
 * Turns one flush (its metadata lines and events) into the bytes the trace file appends: one gzip
 * member (zlib; JavaScript on worker threads, deflate.ts says why) from the byte formatter's lines, or those lines themselves when
 * compression is off. The writer thread and the traced thread (when it writes itself) each hold one.
 */
export class BatchEncoder {
  private lines: EventBytes | null = null;

  constructor(
    private readonly ctx: FormatContext,
    private readonly encoding: Encoding,
    private readonly stats: EncoderStats = new EncoderStats(),
    /** What compresses the text: threadDeflate() says which is safe on this thread. */
    private readonly deflate: Deflate = zlibDeflate,
  ) {}

  /** The bytes for the file (a view valid until the next call when uncompressed). */
  encode(meta: string, cols: EventColumns): Buffer {
    const text = (this.lines ??= new EventBytes(this.ctx, 1 << 20)).format(meta, cols, true);
    if (!this.encoding.compression) {
      this.stats.add('plain');
      return text;
    }
    this.stats.add('zlib');
    return text.length === 0 ? text : this.deflate(text, this.encoding.level);
  }
}
