/**
 * A flush's gzip member straight from the event columns, without building the text.
 *
 * Formatting lines and then having zlib search them for repeats costs most of a traced event's CPU
 * (building a line ~130 ns, encoding it ~65, zlib -1 ~200–230, their garbage ~110; core README,
 * "Performance"). But the encoder already knows where the repeats are: an event's line is its
 * kind's previous line with a few fields changed. So each line is walked as pieces — constant
 * fragments and field values — against that previous line (the reference):
 *
 * - a piece equal to the reference's (a fragment, a number equal as a value, the same interned
 *   string) is copied from it: one match runs over all equal pieces at the same distance, and on
 *   into the next line when that line's reference follows this one's;
 * - a changed number keeps its common leading digits in the match, the rest are literals;
 * - a changed fragment or interned string is copied from where it last appeared, else literals;
 * - the CRC-32 advances over a piece in one step from the piece's own CRC (crc32.ts), so the text is
 *   never needed; only changed numbers' digits are generated at all.
 *
 * The output is byte for byte the gzip of `formatEvents`'s text (the tests decompress and compare),
 * in one dynamic-Huffman block (deflate-block.ts). Lines that may be cut for length (huge string
 * args) are formatted by `formatLine` and written as literals.
 */
import { CRC_START, CRC_TABLE, crcBytes, crcFinish, crcShift, shiftMap } from './crc32.js';
import { DeflateTokens, MIN_MATCH, WINDOW, gzipMember } from './deflate-block.js';
import {
  MAX_EVENT_BYTES,
  TAG_FALSE,
  TAG_ISTR,
  TAG_NULL,
  TAG_NUM,
  TAG_RAW,
  TAG_STR,
  TAG_TRUE,
  formatLine,
  jsonString,
  numberText,
  type EventColumns,
  type FormatContext,
} from './event-buffer.js';
import { grown } from './typed-arrays.js';

/** A constant piece of text: its bytes, its CRC from a zero register, and where it was last written. */
class Frag {
  readonly bytes: Uint8Array;
  readonly len: number;
  readonly crc: number;
  readonly shift: Int32Array;
  /** The UTF-16 length of the text (for the oversize estimate). */
  readonly chars: number;
  /** Where the fragment was last written, valid in batch `gen`. */
  last = 0;
  gen = -1;

  constructor(text: string) {
    this.bytes = Buffer.from(text, 'utf8');
    this.len = this.bytes.length;
    this.crc = crcBytes(0, this.bytes, 0, this.len);
    this.shift = shiftMap(this.len);
    this.chars = text.length;
  }
}

/** Fixed slots of a line's pieces; an arg takes two (its key, its value) after them. */
const S_ID = 0;
const S_TID = 1;
const S_TS = 2;
const S_DUR = 3;
const S_LEVEL = 4;
const S_PIDX = 5;
const S_ARGS = 6;
/** Args compared with the reference line; later ones are written without a reference. */
const MAX_ARG_SLOTS = 13;
const SLOTS = S_ARGS + 2 * MAX_ARG_SLOTS;
/** Bytes kept per slot for a number's text: the longest double is 24 characters. */
const DIG = 24;
const PRE = DIG + 1;
/** Tag of a key slot (a value slot uses the arg tags of event-buffer.ts). */
const TAG_KEY = 7;
/** Tag of a slot not yet written. */
const TAG_NONE = 255;

/** shiftMap of each length a number's text can have. */
const NUM_SHIFT = Array.from({ length: DIG + 1 }, (_, n) => shiftMap(n));

/** Under this many UTF-16 units a line is never cut (formatLine's first test). */
const SAFE_LINE_CHARS = MAX_EVENT_BYTES / 3;

export class EventGzip {
  private readonly tokens = new DeflateTokens();
  private readonly kindFrags: Frag[] = [];
  private readonly keyFrags: Frag[] = [];
  private readonly strFrags: Frag[] = [];
  private readonly fId = new Frag('{"id":');
  private readonly fTs = new Frag(',"ts":');
  private readonly fDur = new Frag(',"dur":');
  private readonly fArgsHead: Frag;
  private readonly fPidx = new Frag(',"p_idx":');
  private readonly fTail = new Frag('}}\n');
  private readonly fTailBare = new Frag(',"ph":"X"}\n');
  private readonly fTrue = new Frag('true');
  private readonly fFalse = new Frag('false');
  private readonly fNull = new Frag('null');

  // Per kind: where its last line began in this batch (-1: none yet) and how many args it had.
  private refStart = new Float64Array(64);
  private refArgs = new Int32Array(64);
  // Per kind and slot: the last line's piece, as value, tag, byte length, CRC, and a number's text.
  private sNum = new Float64Array(64 * SLOTS);
  private sTag = new Uint8Array(64 * SLOTS).fill(TAG_NONE);
  private sLen = new Int32Array(64 * SLOTS);
  private sCrc = new Int32Array(64 * SLOTS);
  /** Per number slot: the CRC (from a zero register) of each prefix of its text, lengths 0…24. */
  private sPre = new Int32Array(64 * SLOTS * PRE);
  private sDig = new Uint8Array(64 * SLOTS * DIG);
  private sStr: (string | undefined)[] = [];

  // The batch being encoded: uncompressed size so far, raw CRC register, token count, the
  // reference position (-1: none), and the open match (its length, distance and first two bytes).
  private pos = 0;
  private crc = CRC_START;
  private t = 0;
  private rpos = -1;
  private runLen = 0;
  private runDist = 0;
  private runB0 = 0;
  private runB1 = 0;
  private gen = 0;

  private readonly dig = new Uint8Array(32);
  private text = Buffer.allocUnsafe(1 << 16);
  private readonly cuts = { count: 0 };
  // The longest key, and the longest interned string or number text (UTF-16 units).
  private maxKeyChars = 0;
  private maxValueChars = DIG;

  constructor(private readonly ctx: FormatContext) {
    this.fArgsHead = new Frag(ctx.argsHead);
  }

  /** One gzip member holding `meta` (metadata lines) and then the events' lines. */
  encode(meta: string, b: EventColumns): Buffer {
    this.prepare();
    this.tokens.reset(1 << 14);
    this.pos = 0;
    this.crc = CRC_START;
    this.t = 0;
    this.runLen = 0;
    this.gen++;
    this.cuts.count = 0;
    if (meta.length > 0) this.textLiterals(meta);
    let from = 0;
    for (let i = 0; i < b.count; i++) {
      const to = b.argEnd[i]!;
      this.line(b, i, from, to);
      from = to;
    }
    this.closeRun();
    if (this.cuts.count > 0) this.ctx.onTruncated(this.cuts.count);
    return gzipMember(this.tokens, this.t, crcFinish(this.crc), this.pos);
  }

  /** Compiles fragments interned since the last batch; sizes the per-kind state. */
  private prepare(): void {
    const { kindFrag, keyFrag, strFrag } = this.ctx;
    for (let k = this.kindFrags.length; k < kindFrag.length; k++) this.kindFrags.push(new Frag(kindFrag[k]!));
    for (let k = this.keyFrags.length; k < keyFrag.length; k++) {
      const f = new Frag(keyFrag[k]!);
      this.keyFrags.push(f);
      this.maxKeyChars = Math.max(this.maxKeyChars, f.chars);
    }
    for (let k = this.strFrags.length; k < strFrag.length; k++) {
      const f = new Frag(strFrag[k]!);
      this.strFrags.push(f);
      this.maxValueChars = Math.max(this.maxValueChars, f.chars);
    }
    const kinds = kindFrag.length;
    if (kinds > this.refStart.length) {
      const n = Math.max(kinds, this.refStart.length * 2);
      this.refStart = new Float64Array(n);
      this.refArgs = new Int32Array(n);
      this.sNum = grown(this.sNum, n * SLOTS);
      const tags = new Uint8Array(n * SLOTS).fill(TAG_NONE);
      tags.set(this.sTag);
      this.sTag = tags;
      this.sLen = grown(this.sLen, n * SLOTS);
      this.sCrc = grown(this.sCrc, n * SLOTS);
      this.sPre = grown(this.sPre, n * SLOTS * PRE);
      this.sDig = grown(this.sDig, n * SLOTS * DIG);
    }
    this.refStart.fill(-1);
  }

  private line(b: EventColumns, i: number, from: number, to: number): void {
    const kind = b.kind[i]!;
    const ctx = this.ctx;
    const nArgs = ctx.incMetadata ? to - from : 0;
    if (nArgs > 0 && (b.argObj.length > 0 || nArgs * (this.maxKeyChars + this.maxValueChars) > SAFE_LINE_CHARS - 256 - this.kindFrags[kind]!.chars) && this.mayBeCut(b, kind, from, to)) {
      this.textLiterals(formatLine(b, ctx, i, from, to, this.cuts));
      this.refStart[kind] = -1; // its slots were not kept
      return;
    }
    const start = this.pos;
    const cmp = this.refStart[kind]! >= 0;
    this.rpos = cmp ? this.refStart[kind]! : -1;
    const base = kind * SLOTS;
    this.fixed(this.fId);
    this.num(base + S_ID, b.id[i]!, cmp, false);
    this.fixed(this.kindFrags[kind]!);
    this.num(base + S_TID, b.tid[i]!, cmp, false);
    this.fixed(this.fTs);
    this.num(base + S_TS, b.ts[i]!, cmp, true);
    this.fixed(this.fDur);
    this.num(base + S_DUR, b.dur[i]!, cmp, false);
    if (!ctx.incMetadata) {
      this.fixed(this.fTailBare);
    } else {
      this.fixed(this.fArgsHead);
      this.num(base + S_LEVEL, b.level[i]!, cmp, false);
      this.fixed(this.fPidx);
      this.num(base + S_PIDX, b.pidx[i]!, cmp, false);
      const refArgs = this.refArgs[kind]!;
      for (let j = from, a = 0; j < to; j++, a++) {
        if (a >= MAX_ARG_SLOTS || a >= refArgs) this.rpos = -1;
        const slot = a < MAX_ARG_SLOTS ? base + S_ARGS + 2 * a : -1;
        const cmpArg = cmp && a < refArgs && slot >= 0;
        const key = b.argKey[j]!;
        this.interned(slot, TAG_KEY, key, this.keyFrags[key]!, cmpArg);
        const tag = b.argTag[j]!;
        const v = b.argNum[j]!;
        const vSlot = slot >= 0 ? slot + 1 : -1;
        switch (tag) {
          case TAG_NUM:
            this.num(vSlot, v, cmpArg, true);
            break;
          case TAG_ISTR:
            this.interned(vSlot, TAG_ISTR, v, this.strFrags[v]!, cmpArg);
            break;
          case TAG_STR:
          case TAG_RAW:
            this.str(vSlot, tag, b.argObj[v]!, cmpArg);
            break;
          case TAG_TRUE:
            this.interned(vSlot, TAG_TRUE, 0, this.fTrue, cmpArg);
            break;
          case TAG_FALSE:
            this.interned(vSlot, TAG_FALSE, 0, this.fFalse, cmpArg);
            break;
          default:
            this.interned(vSlot, TAG_NULL, 0, this.fNull, cmpArg);
        }
      }
      if (nArgs !== refArgs) this.rpos = -1;
      this.fixed(this.fTail);
    }
    this.refStart[kind] = start;
    this.refArgs[kind] = nArgs;
  }

  /**
   * Whether formatLine might cut this line: an upper bound of its UTF-16 length (escaping can make
   * a string six times longer) over the length under which it never does.
   */
  private mayBeCut(b: EventColumns, kind: number, from: number, to: number): boolean {
    let chars = 256 + this.kindFrags[kind]!.chars + this.fArgsHead.chars;
    for (let j = from; j < to; j++) {
      chars += this.keyFrags[b.argKey[j]!]!.chars;
      const tag = b.argTag[j]!;
      if (tag === TAG_STR) chars += 6 * b.argObj[b.argNum[j]!]!.length + 2;
      else if (tag === TAG_RAW) chars += b.argObj[b.argNum[j]!]!.length;
      else if (tag === TAG_ISTR) chars += this.strFrags[b.argNum[j]!]!.chars;
      else chars += DIG;
    }
    return chars > SAFE_LINE_CHARS;
  }

  /** A fragment that the reference line holds at the same place (if there is a reference). */
  private fixed(f: Frag): void {
    const len = f.len;
    if (this.rpos >= 0) {
      this.copy(this.pos - this.rpos, len, f.bytes, 0);
      this.rpos += len;
    } else this.fragElsewhere(f);
    this.crc = crcShift(this.crc, f.shift) ^ f.crc;
    this.pos += len;
  }

  /** A fragment copied from where it last appeared, or written as literals. */
  private fragElsewhere(f: Frag): void {
    const d = this.pos - f.last;
    if (f.gen === this.gen && d <= WINDOW) this.copy(d, f.len, f.bytes, 0);
    else this.literals(f.bytes, 0, f.len);
    f.last = this.pos;
    f.gen = this.gen;
  }

  /** An interned value (key, string, true/false/null) in `slot` (-1: not kept). */
  private interned(slot: number, tag: number, id: number, f: Frag, cmp: boolean): void {
    const len = f.len;
    if (cmp && this.sTag[slot] === tag && this.sNum[slot] === id) {
      if (this.rpos >= 0) {
        this.copy(this.pos - this.rpos, len, f.bytes, 0);
        this.rpos += len;
      } else this.fragElsewhere(f);
    } else {
      if (this.rpos >= 0) this.rpos += this.sLen[slot]!;
      this.fragElsewhere(f);
      if (slot >= 0) {
        this.sTag[slot] = tag;
        this.sNum[slot] = id;
        this.sLen[slot] = len;
      }
    }
    this.crc = crcShift(this.crc, f.shift) ^ f.crc;
    this.pos += len;
  }

  /**
   * A number in `slot` (-1: not kept), written as formatLine writes it: `json` for ts and args
   * (numberText), else String(v).
   */
  private num(slot: number, v: number, cmp: boolean, json: boolean): void {
    if (slot < 0) {
      const len = numberDigits(v, this.dig, json);
      this.crc = crcBytes(this.crc, this.dig, 0, len);
      this.literals(this.dig, 0, len);
      this.pos += len;
      return;
    }
    const sd = this.sDig;
    const o = slot * DIG;
    const refLen = this.sLen[slot]!;
    let len: number;
    if (cmp && this.sTag[slot] === TAG_NUM) {
      const r = this.sNum[slot]!;
      if (r === v) {
        len = refLen;
        if (this.rpos >= 0) this.copy(this.pos - this.rpos, len, sd, o);
        else this.literals(sd, o, len);
      } else if (v > 0 && r >= 0 && Number.isSafeInteger(v) && Number.isSafeInteger(r)) {
        len = this.changedDigits(slot, v, r, refLen);
      } else len = this.anyDigits(slot, v, json, refLen);
    } else len = this.anyDigits(slot, v, json, -1);
    if (this.rpos >= 0) this.rpos += refLen;
    this.crc = crcShift(this.crc, NUM_SHIFT[len]!) ^ this.sPre[slot * PRE + len]!;
    this.pos += len;
  }

  /**
   * A positive integer that differs from the reference's (a non-negative one): only the trailing digits
   * that differ are generated, checked and written as literals; the leading ones are copied.
   * Updates the slot; returns the text's length.
   */
  private changedDigits(slot: number, v: number, r: number, refLen: number): number {
    const rev = this.dig;
    // Strip trailing digits off both until what is left is equal: those are the digits that differ.
    let x = v;
    let y = r;
    let k = 0;
    if (x >= 1e8 && y >= 1e8) {
      // Timestamps: when the high parts agree, strip the low eight digits (zero-padded) in int32 math.
      const hx = Math.floor(x / 1e8);
      if (hx === Math.floor(y / 1e8)) {
        x -= hx * 1e8;
        y -= hx * 1e8;
        while (x !== y) {
          const qx = (x / 10) | 0;
          rev[k++] = 48 + (x - qx * 10);
          x = qx;
          y = (y / 10) | 0;
        }
        return this.changedTail(slot, v, refLen - k, k);
      }
    }
    if (x <= 0x7fffffff && y <= 0x7fffffff) {
      while (x !== y && x !== 0) {
        const qx = (x / 10) | 0;
        rev[k++] = 48 + (x - qx * 10);
        x = qx;
        y = (y / 10) | 0;
      }
    } else {
      while (x !== y && x !== 0) {
        const qx = Math.floor(x / 10);
        rev[k++] = 48 + (x - qx * 10);
        x = qx;
        y = Math.floor(y / 10);
      }
    }
    return this.changedTail(slot, v, x > 0 ? refLen - k : 0, k);
  }

  /** changedDigits' end: `same` leading digits copied, then the `k` new ones (reversed in `dig`). */
  private changedTail(slot: number, v: number, same: number, k: number): number {
    const sd = this.sDig;
    const o = slot * DIG;
    const rev = this.dig;
    const len = same + k;
    if (same > 0 && this.rpos >= 0) this.copy(this.pos - this.rpos, same, sd, o);
    const pre = this.sPre;
    const p = slot * PRE;
    let c = pre[p + same]!;
    for (let j = 0; j < k; j++) {
      const d = rev[k - 1 - j]!;
      sd[o + same + j] = d;
      c = CRC_TABLE[(c ^ d) & 0xff]! ^ (c >>> 8);
      pre[p + same + j + 1] = c;
    }
    this.literals(sd, o + same, k);
    this.sNum[slot] = v;
    this.sLen[slot] = len;
    return len;
  }

  /**
   * Any number: its whole text, the leading digits it shares with the reference's (when there is
   * one: `refLen` ≥ 0) copied. Updates the slot; returns the text's length.
   */
  private anyDigits(slot: number, v: number, json: boolean, refLen: number): number {
    const sd = this.sDig;
    const o = slot * DIG;
    const dig = this.dig;
    const len = numberDigits(v, dig, json);
    const pre = this.sPre;
    const p = slot * PRE;
    let same = 0;
    let c = 0;
    pre[p] = 0;
    for (let k = 0; k < len; k++) {
      const x = dig[k]!;
      if (same === k && k < refLen && sd[o + k] === x) same++;
      sd[o + k] = x;
      c = CRC_TABLE[(c ^ x) & 0xff]! ^ (c >>> 8);
      pre[p + k + 1] = c;
    }
    if (same > 0 && this.rpos >= 0) this.copy(this.pos - this.rpos, same, sd, o);
    if (same < len) this.literals(sd, o + same, len - same);
    this.sTag[slot] = TAG_NUM;
    this.sNum[slot] = v;
    this.sLen[slot] = len;
    return len;
  }

  /** A string arg (TAG_STR: escaped here; TAG_RAW: JSON already) in `slot` (-1: not kept). */
  private str(slot: number, tag: number, v: string, cmp: boolean): void {
    // Copied only from the reference (no bytes at hand for literals): at least 3 bytes, in the window.
    if (cmp && this.sTag[slot] === tag && this.sStr[slot] === v && this.sLen[slot]! >= MIN_MATCH && this.rpos >= 0 && this.pos - this.rpos <= WINDOW) {
      const len = this.sLen[slot]!;
      this.copy(this.pos - this.rpos, len, null, 0);
      this.rpos += len;
      this.crc = crcShift(this.crc, shiftMap(len)) ^ this.sCrc[slot]!;
      this.pos += len;
      return;
    }
    if (this.rpos >= 0) this.rpos += this.sLen[slot]!;
    const json = tag === TAG_STR ? jsonString(v) : v;
    const len = this.utf8(json);
    this.literals(this.text, 0, len);
    const c0 = crcBytes(0, this.text, 0, len);
    this.crc = crcShift(this.crc, shiftMap(len)) ^ c0;
    this.pos += len;
    if (slot >= 0) {
      this.sTag[slot] = tag;
      this.sStr[slot] = v;
      this.sLen[slot] = len;
      this.sCrc[slot] = c0;
    }
  }

  /** Text with no reference (metadata lines, lines that may be cut), as literals. */
  private textLiterals(s: string): void {
    const len = this.utf8(s);
    this.literals(this.text, 0, len);
    this.crc = crcBytes(this.crc, this.text, 0, len);
    this.pos += len;
  }

  /** Encodes `s` as UTF-8 into the text scratch; returns its byte length. */
  private utf8(s: string): number {
    if (this.text.length < 3 * s.length) this.text = Buffer.allocUnsafe(Math.max(3 * s.length, 2 * this.text.length));
    return this.text.write(s, 0, 'utf8');
  }

  /**
   * `len` bytes equal to those `d` back: they join the open match if it has the same distance.
   * `src[off…]` are the bytes themselves, needed only if they end up as literals (a match shorter
   * than 3, or beyond the window); `null` when the caller guarantees neither (len ≥ 3, d checked).
   */
  private copy(d: number, len: number, src: Uint8Array | null, off: number): void {
    if (d > WINDOW) {
      this.literals(src!, off, len);
      return;
    }
    if (this.runLen > 0 && this.runDist === d) {
      if (this.runLen === 1) this.runB1 = src === null ? 0 : src[off]!;
      this.runLen += len;
      return;
    }
    this.closeRun();
    this.runDist = d;
    this.runLen = len;
    if (src !== null) {
      this.runB0 = src[off]!;
      this.runB1 = len > 1 ? src[off + 1]! : 0;
    }
  }

  private closeRun(): void {
    const len = this.runLen;
    if (len === 0) return;
    this.runLen = 0;
    if (len >= MIN_MATCH) {
      this.tokens.ensure(this.t, 2 + (len >> 7));
      this.t = this.tokens.match(this.t, len, this.runDist);
      return;
    }
    const tok = this.tokens.ensure(this.t, 2);
    const lf = this.tokens.litFreq;
    tok[this.t++] = this.runB0;
    lf[this.runB0]!++;
    if (len === 2) {
      tok[this.t++] = this.runB1;
      lf[this.runB1]!++;
    }
  }

  private literals(src: Uint8Array, off: number, len: number): void {
    this.closeRun();
    const tok = this.tokens.ensure(this.t, len);
    const lf = this.tokens.litFreq;
    let t = this.t;
    for (let k = off, end = off + len; k < end; k++) {
      const y = src[k]!;
      tok[t++] = y;
      lf[y]!++;
    }
    this.t = t;
  }
}

/**
 * Writes v's text into `out` (ASCII) and returns its length: integers by arithmetic, anything else
 * (fractions, huge or non-finite values) as formatLine writes it (`json`: numberText, else String).
 */
export function numberDigits(v: number, out: Uint8Array, json: boolean): number {
  if (Number.isSafeInteger(v)) {
    if (v >= 0) return unsignedDigits(v, out, 0);
    out[0] = 45; // '-'
    return 1 + unsignedDigits(-v, out, 1);
  }
  if (v === 0) {
    out[0] = 48; // -0 → "0"
    return 1;
  }
  const s = json ? numberText(v) : String(v);
  for (let k = 0; k < s.length; k++) out[k] = s.charCodeAt(k);
  return s.length;
}

function unsignedDigits(v: number, out: Uint8Array, o: number): number {
  if (v < 1e8) return smallDigits(v, out, o);
  // Above 1e8 (timestamps ~1.7e15): the high part, then the low eight digits zero-padded, in int32 math.
  const hi = Math.floor(v / 1e8);
  let lo = v - hi * 1e8;
  const at = smallDigits(hi, out, o) + o;
  for (let k = at + 7; k >= at; k--) {
    const q = (lo / 10) | 0;
    out[k] = 48 + lo - q * 10;
    lo = q;
  }
  return at - o + 8;
}

/** The digits of 0 ≤ v < 1e8 at out[o…]; returns how many (so does unsignedDigits). */
function smallDigits(v: number, out: Uint8Array, o: number): number {
  let n = 1;
  for (let x = v; x >= 10; x = (x / 10) | 0) n++;
  let x = v | 0;
  for (let k = o + n - 1; k >= o; k--) {
    const q = (x / 10) | 0;
    out[k] = 48 + x - q * 10;
    x = q;
  }
  return n;
}
