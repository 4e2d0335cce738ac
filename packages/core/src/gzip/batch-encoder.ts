import type { EventColumns } from '../recording/columns.js';
import type { FormatContext } from '../format/format-events.js';
import { EventBytes } from '../format/event-bytes.js';
import type { GzipEncoder } from '../types.js';
import { EncoderStats } from './encoder-stats.js';
import { EventGzip, SOURCES } from './event-gzip.js';
import { SizeGuard } from './size-guard.js';
import { zlibDeflate, type Deflate } from './deflate.js';

/** How a file's batches are written (DFTRACER_TRACE_COMPRESSION, _COMPRESSION_LEVEL, _GZIP_ENCODER). */
export interface Encoding {
  readonly compression: boolean;
  /** 1–9. */
  readonly level: number;
  readonly gzipEncoder: GzipEncoder;
}

/** Events of a batch that decide, where zlib has been winning, whether the whole batch is measured. */
const PROBE_EVENTS = 512;

/** Levels the hand-written encoder serves; above them zlib's deeper search is what was asked for. */
const MAX_CUSTOM_LEVEL = 6;

const noop = (): void => {};

/**
 * Turns one flush (its metadata lines and events) into the bytes the trace file appends: one gzip
 * member, or plain text when compression is off. The writer thread and the traced thread (when it
 * writes itself) each hold one.
 *
 * Up to level 6 the hand-written encoder (event-gzip.ts) writes straight from the columns: on lines
 * that repeat a few kinds, less CPU than formatting text for zlib and fewer bytes. Level 1 (the default)
 * copies from a kind's last line, 2–6 from its last few. A batch full of new text (long string
 * args) is formatted for zlib instead, which finds repeats inside strings. The size guard
 * (size-guard.ts) sends the other batches to zlib too wherever zlib writes fewer bytes. Levels
 * 7–9, and DFTRACER_GZIP_ENCODER=zlib, format every batch for zlib at that level.
 */
export class BatchEncoder {
  private lines: EventBytes | null = null;
  private gz: EventGzip | null = null;
  private readonly guard: SizeGuard | null;
  private readonly custom: boolean;
  private failed = false;
  // Interned entries already counted as new text (SizeGuard.due).
  private seenKinds = 0;
  private seenStrs = 0;

  constructor(
    private readonly ctx: FormatContext,
    private readonly encoding: Encoding,
    private readonly stats: EncoderStats = new EncoderStats(),
    /** Told the hand-written encoder's first error (its batch, and only it, went to zlib). */
    private readonly onFallback: (message: string) => void = noop,
    /** What compresses text ("zlib" batches): threadDeflate() says which is safe on this thread. */
    private readonly deflate: Deflate = zlibDeflate,
  ) {
    this.custom = encoding.compression && encoding.level <= MAX_CUSTOM_LEVEL && encoding.gzipEncoder !== 'zlib';
    this.guard = this.custom && encoding.gzipEncoder === 'auto' ? new SizeGuard() : null;
  }

  /** The bytes for the file (a view valid until the next call when uncompressed). */
  encode(meta: string, cols: EventColumns): Buffer {
    if (!this.encoding.compression) {
      this.stats.add('plain');
      return this.text(meta, cols, true);
    }
    if (this.custom) {
      const gz = (this.gz ??= new EventGzip(this.ctx, this.encoding.level === 1 ? 1 : SOURCES));
      const guard = this.guard;
      const newText = guard === null ? 0 : meta.length + this.newText();
      if (!gz.prefersText(cols)) {
        if (guard !== null && guard.due(cols, newText)) {
          this.stats.add('sampled');
          const both = this.measured(gz, guard, meta, cols);
          if (both !== null) return both;
        } else if (guard === null || !guard.preferZlib) {
          const bytes = this.customBytes(gz, meta, cols);
          if (bytes !== null) {
            this.stats.add('custom');
            return bytes;
          }
        }
      }
    }
    this.stats.add('zlib');
    return this.zlib(meta, cols, true);
  }

  /**
   * A batch the guard measures: both encodings, the smaller written. Where zlib has been winning,
   * the batch's first PROBE_EVENTS events decide first whether the whole is worth encoding twice:
   * the hand-written encoder then runs rarely, never warm, and a whole batch of it costs far more
   * than the slice. Returns null for zlib's member to be written.
   */
  private measured(gz: EventGzip, guard: SizeGuard, meta: string, cols: EventColumns): Buffer | null {
    if (guard.preferZlib && cols.count > PROBE_EVENTS) {
      const probe: EventColumns = { ...cols, count: PROBE_EVENTS };
      const own = this.customBytes(gz, '', probe);
      if (own === null) return null;
      const z = this.deflate(this.text('', probe, false), this.encoding.level);
      if (!guard.keeps(own.length, z.length)) {
        guard.measured(own.length, z.length);
        return null;
      }
    }
    const bytes = this.customBytes(gz, meta, cols);
    if (bytes === null) return null;
    const z = this.zlib(meta, cols, false); // a batch's second encoding: its cuts are told once
    const customWins = guard.measured(bytes.length, z.length);
    this.stats.add(customWins ? 'custom' : 'zlib');
    return customWins ? bytes : z;
  }

  /** The hand-written encoder's member, or null when it refused the batch (counted, first error told). */
  private customBytes(gz: EventGzip, meta: string, cols: EventColumns): Buffer | null {
    try {
      return gz.encode(meta, cols);
    } catch (e) {
      // The encoder refuses to write what it cannot write correctly (deflate-block.ts): this batch
      // goes to zlib, whole, and the traced program never sees the error.
      this.stats.add('fallbacks');
      if (!this.failed) {
        this.failed = true;
        this.onFallback(`the gzip encoder failed on a batch (${(e as Error)?.message ?? String(e)}); it was written by zlib`);
      }
      return null;
    }
  }

  private zlib(meta: string, cols: EventColumns, report: boolean): Buffer {
    const text = this.text(meta, cols, report);
    if (text.length === 0) return text;
    return this.deflate(text, this.encoding.level);
  }

  /** The batch's text as bytes (`report`: whether cut lines are told to ctx.onTruncated). */
  private text(meta: string, cols: EventColumns, report: boolean): Buffer {
    return (this.lines ??= new EventBytes(this.ctx, 1 << 20)).format(meta, cols, report);
  }

  /** Characters of the kinds and strings interned since the last call. */
  private newText(): number {
    const { kindFrag, strFrag } = this.ctx;
    let chars = 0;
    for (; this.seenKinds < kindFrag.length; this.seenKinds++) chars += kindFrag[this.seenKinds]!.length;
    for (; this.seenStrs < strFrag.length; this.seenStrs++) chars += strFrag[this.seenStrs]!.length;
    return chars;
  }
}
