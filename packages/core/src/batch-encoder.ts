import { gzipSync } from 'node:zlib';
import { formatEvents, type EventColumns, type FormatContext } from './event-buffer.js';
import { EventGzip } from './event-gzip.js';
import { gzipLines } from './line-gzip.js';
import { TextSink } from './text-sink.js';

/**
 * Turns one flush (its metadata lines and events) into the bytes the trace file appends: one gzip
 * member, or plain text when compression is off. The writer thread and the main thread (when it
 * formats itself) each hold one.
 *
 * By compression level: 1 (the default) encodes straight from the columns (event-gzip.ts: about
 * half the CPU of text + zlib -1, and a third fewer bytes); 2–6 format the text and use the
 * line-aware encoder (line-gzip.ts); 7–9 format the text for zlib at that level.
 */
export class BatchEncoder {
  private sink: TextSink | null = null;
  private gz: EventGzip | null = null;

  constructor(
    private readonly ctx: FormatContext,
    private readonly compression: boolean,
    private readonly level: number,
  ) {}

  /** The bytes for the file (a view valid until the next call when uncompressed). */
  encode(meta: string, cols: EventColumns): Buffer {
    if (this.compression && this.level === 1) return (this.gz ??= new EventGzip(this.ctx)).encode(meta, cols);
    const sink = (this.sink ??= new TextSink(1 << 20));
    sink.clear();
    sink.write(meta);
    formatEvents(cols, this.ctx, sink);
    const text = sink.view();
    if (!this.compression || text.length === 0) return text;
    return this.level <= 6 ? gzipLines(text, this.level) : gzipSync(text, { level: this.level });
  }
}
