/** Formatting fixtures shared by the tests of the formatter and of the encoders that must reproduce it. */
import type { EventColumns } from '../recording/columns.js';
import { EventBuffer } from '../recording/event-buffer.js';
import { Interner } from '../recording/interner.js';
import { formatEvents, type FormatContext } from '../format/format-events.js';
import { FH, HH } from './fixtures.test-util.js';
import { argsHead } from '../format/line-format.js';

/** A FormatContext over an interner's tables, as the tracer builds one. */
export function formatContext(interner: Interner, options: { incMetadata?: boolean; hostHash?: string; onTruncated?: (n: number) => void } = {}): FormatContext {
  return {
    kindFrag: interner.kindFrag,
    keyFrag: interner.keyFrag,
    strFrag: interner.strFrag,
    incMetadata: options.incMetadata ?? true,
    argsHead: argsHead(options.hostHash ?? HH),
    onTruncated: options.onTruncated ?? (() => {}),
  };
}

/** The text path's bytes for a flush: its metadata lines, then its events. */
export function formattedText(meta: string, buf: EventColumns, ctx: FormatContext): Buffer {
  return Buffer.from(meta + formatEvents(buf, { ...ctx, onTruncated: () => {} }));
}

/**
 * Pushes `count` POSIX-read events numbered from `first`: sequential 4 KiB reads, 256 per file
 * over 64 files, durations 2–5 µs; `ts` gives each event's time, called in order.
 */
export function pushPosixReads(buf: EventBuffer, interner: Interner, first: number, count: number, ts: (n: number) => number): void {
  const k = interner.kind('read', 'POSIX');
  for (let n = first; n < first + count; n++) {
    buf.push(k, n + 1, 4242, ts(n), 2 + (n & 3), 1, -1, { fhash: FH[(n >> 8) & 63], count: 4096, offset: (n & 255) * 4096, ret: 4096 }, interner);
  }
}
