import { TAG_FALSE, TAG_ISTR, TAG_NUM, TAG_RAW, TAG_STR, TAG_TRUE, type EventColumns } from '../recording/columns.js';
import { formatLine, type FormatContext } from './format-events.js';
import { FragmentBytes, packBytes, putPacked } from './fragment-bytes.js';
import { ARGS_TAIL, BARE_TAIL, DUR_HEAD, FALSE_TEXT, ID_HEAD, MAX_EVENT_BYTES, NULL_TEXT, PIDX_HEAD, TRUE_TEXT, TS_HEAD, jsonString } from './line-format.js';
import { numberDigits } from './number-digits.js';

/**
 * The text path's formatter without the text: each event's line written straight into one reusable
 * byte buffer, byte for byte what formatEvents writes. Fragments are encoded once and copied a word
 * at a time; integers are written digit by digit; only other numbers, strings with characters that
 * need escaping or are not ASCII, and oversize lines (cut by formatLine) go through strings. A
 * writer thread formatting text for zlib thus makes almost no garbage per event, where strings made
 * ~1 KB of it (and GC pauses that share the program's cores).
 */
export class EventBytes {
  private buf: Buffer;
  /** The same memory as a plain Uint8Array (digits, strings) and as a DataView (fragments, putPacked). */
  private out: Uint8Array;
  private view: DataView;
  private len = 0;
  private readonly kinds: FragmentBytes;
  private readonly keys: FragmentBytes;
  private readonly strs: FragmentBytes;
  private readonly argsHead: Int32Array;
  private readonly cuts = { count: 0 };

  constructor(
    private readonly ctx: FormatContext,
    size = 1 << 16,
  ) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(size, 64));
    this.out = asBytes(this.buf);
    this.view = asView(this.buf);
    this.kinds = new FragmentBytes(ctx.kindFrag);
    this.keys = new FragmentBytes(ctx.keyFrag);
    this.strs = new FragmentBytes(ctx.strFrag);
    this.argsHead = packBytes(ctx.argsHead);
  }

  /**
   * `meta` (metadata lines) and then every event's line, as UTF-8: a view valid until the next call.
   * `report`: whether cut lines are told to ctx.onTruncated (not for a batch formatted twice).
   */
  format(meta: string, b: EventColumns, report = true): Buffer {
    this.len = 0;
    this.cuts.count = 0;
    if (meta.length > 0) this.writeText(meta);
    let from = 0;
    for (let i = 0; i < b.count; i++) {
      const to = b.argEnd[i]!;
      this.line(b, i, from, to);
      from = to;
    }
    if (report && this.cuts.count > 0) this.ctx.onTruncated(this.cuts.count);
    return this.buf.subarray(0, this.len);
  }

  private line(b: EventColumns, i: number, from: number, to: number): void {
    const kind = this.kinds.get(b.kind[i]!);
    const meta = this.ctx.incMetadata;
    // The fixed fields: fragments, six numbers of at most 24 bytes each, and a tail.
    this.room(FIXED_BYTES + 4 * (kind.length + this.argsHead.length));
    const out = this.out;
    const view = this.view;
    const start = this.len;
    let o = putPacked(ID_HEAD_BYTES, view, start);
    o += numberDigits(b.id[i]!, out, false, o);
    o = putPacked(kind, view, o);
    o += numberDigits(b.tid[i]!, out, false, o);
    o = putPacked(TS_HEAD_BYTES, view, o);
    o += numberDigits(b.ts[i]!, out, true, o); // formatLine writes ts with numberText, the rest with String
    o = putPacked(DUR_HEAD_BYTES, view, o);
    o += numberDigits(b.dur[i]!, out, false, o);
    if (!meta) {
      this.len = putPacked(BARE_TAIL_BYTES, view, o);
      return;
    }
    o = putPacked(this.argsHead, view, o);
    o += numberDigits(b.level[i]!, out, false, o);
    o = putPacked(PIDX_HEAD_BYTES, view, o);
    o += numberDigits(b.pidx[i]!, out, false, o);
    this.len = o;
    if (to > from && !this.args(b, from, to)) {
      this.cut(b, i, from, to, start);
      return;
    }
    this.room(4 * ARGS_TAIL_BYTES.length);
    this.len = putPacked(ARGS_TAIL_BYTES, this.view, this.len);
    if (this.len - start > MAX_EVENT_BYTES) this.cut(b, i, from, to, start);
  }

  /** Writes args [from, to); false, having written part of them, when a string alone is too long for a line. */
  private args(b: EventColumns, from: number, to: number): boolean {
    for (let j = from; j < to; j++) {
      const key = this.keys.get(b.argKey[j]!);
      const tag = b.argTag[j]!;
      if (tag === TAG_STR || tag === TAG_RAW) {
        const v = b.argObj[b.argNum[j]!]!;
        if (v.length > MAX_EVENT_BYTES) return false; // at least a byte per unit: the line will be cut
        this.room(4 * key.length + 6 * v.length + 2); // `\uXXXX` is the longest escape of a unit
        const out = this.out;
        const o = putPacked(key, this.view, this.len);
        const end = tag === TAG_STR ? putJsonString(v, out, o) : putAscii(v, out, o);
        this.len = end >= 0 ? end : o + this.buf.write(tag === TAG_STR ? jsonString(v) : v, o, 'utf8');
        continue;
      }
      let value = NULL_BYTES;
      if (tag === TAG_ISTR) value = this.strs.get(b.argNum[j]!);
      else if (tag === TAG_TRUE) value = TRUE_BYTES;
      else if (tag === TAG_FALSE) value = FALSE_BYTES;
      // A packed fragment's length in words, times 4, bounds its bytes and the padding stored with them.
      this.room(4 * (key.length + value.length) + 24);
      const o = putPacked(key, this.view, this.len);
      this.len = tag === TAG_NUM ? o + numberDigits(b.argNum[j]!, this.out, true, o) : putPacked(value, this.view, o);
    }
    return true;
  }

  /** Replaces the line begun at `start` by formatLine's, which cuts its string args to fit. */
  private cut(b: EventColumns, i: number, from: number, to: number, start: number): void {
    this.len = start;
    this.writeText(formatLine(b, this.ctx, i, from, to, this.cuts));
  }

  private writeText(s: string): void {
    this.room(3 * s.length); // the most UTF-8 bytes one UTF-16 unit can take
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  /** Makes room for `n` more bytes. */
  private room(n: number): void {
    if (this.out.length - this.len >= n) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.len + n, 2 * this.out.length));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
    this.out = asBytes(next);
    this.view = asView(next);
  }
}

const asBytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.length);
const asView = (b: Buffer): DataView => new DataView(b.buffer, b.byteOffset, b.length);

const ID_HEAD_BYTES = packBytes(ID_HEAD);
const TS_HEAD_BYTES = packBytes(TS_HEAD);
const DUR_HEAD_BYTES = packBytes(DUR_HEAD);
const PIDX_HEAD_BYTES = packBytes(PIDX_HEAD);
const ARGS_TAIL_BYTES = packBytes(ARGS_TAIL);
const BARE_TAIL_BYTES = packBytes(BARE_TAIL);
const TRUE_BYTES = packBytes(TRUE_TEXT);
const FALSE_BYTES = packBytes(FALSE_TEXT);
const NULL_BYTES = packBytes(NULL_TEXT);
/** Room for a line's fixed fields besides its kind and argsHead fragments (as packed words ×4), padding included. */
const FIXED_BYTES = 6 * 24 + 4 * 24;

/**
 * `s` as a JSON string literal at out[o…] when it is printable ASCII without `"` or `\` (then
 * JSON.stringify would write it as is); returns the end, or -1 (having written part) otherwise.
 */
function putJsonString(s: string, out: Uint8Array, o: number): number {
  out[o++] = 34; // "
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x20 || c > 0x7f || c === 34 || c === 92) return -1;
    out[o++] = c;
  }
  out[o++] = 34;
  return o;
}

/** `s` at out[o…] when it is ASCII; returns the end, or -1 (having written part) otherwise. */
function putAscii(s: string, out: Uint8Array, o: number): number {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c > 0x7f) return -1;
    out[o++] = c;
  }
  return o;
}
