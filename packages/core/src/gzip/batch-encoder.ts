import { gzipSync } from 'node:zlib';
import type { EventColumns } from '../columns.js';
import { formatEvents, type FormatContext } from '../event-buffer.js';
import { EventGzip, SOURCES } from './event-gzip.js';
import { gzipLines } from './line-gzip.js';
import { TextSink } from '../text-sink.js';

/**
 * Turns one flush (its metadata lines and events) into the bytes the trace file appends: one gzip
 * member, or plain text when compression is off. The writer thread and the traced thread (when it
 * writes itself) each hold one.
 *
 * By compression level: 1 (the default) encodes straight from the columns (event-gzip.ts: less
 * CPU than text + zlib -1, and 30–40 % fewer bytes); 2–6 the same with more copy sources (fewer
 * bytes only where values recur a few lines back, more CPU: see EventGzip). A batch full of new
 * text (long string args) is formatted instead, for zlib -1 at level 1 and the line-aware text
 * encoder (line-gzip.ts) at 2–6, which find repeats inside strings. 7–9 format the text for zlib
 * at that level.
 */
export class BatchEncoder {
  private sink: TextSink | null = null;
  private gz: EventGzip | null = null;
  private readonly columnar: boolean;

  constructor(
    private readonly ctx: FormatContext,
    private readonly compression: boolean,
    private readonly level: number,
  ) {
    this.columnar = compression && level <= 6;
  }

  /** The bytes for the file (a view valid until the next call when uncompressed). */
  encode(meta: string, cols: EventColumns): Buffer {
    if (this.columnar) {
      const gz = (this.gz ??= new EventGzip(this.ctx, this.level === 1 ? 1 : SOURCES));
      if (!gz.prefersText(cols)) {
        try {
          return gz.encode(meta, cols);
        } catch {
          // The encoder refuses to write what it cannot write correctly (deflate-block.ts): this
          // batch goes the text way, whole, and the traced program never sees the error.
        }
      }
    }
    const sink = (this.sink ??= new TextSink(1 << 20));
    sink.clear();
    sink.write(meta);
    formatEvents(cols, this.ctx, sink);
    const text = sink.view();
    if (!this.compression || text.length === 0) return text;
    return this.level >= 2 && this.level <= 6 ? gzipLines(text, this.level) : gzipSync(text, { level: this.level });
  }
}
