/**
 * A gzip encoder specialised for trace text: one JSON object per line, each line nearly identical
 * to an earlier line of the same shape (same event name and category), differing in a few numbers
 * and hashes. zlib spends most of its time searching hash chains for LZ77 matches; here the match
 * source is known in advance, so there is no search:
 *
 * - each line is compared with the last earlier line of the same shape (else the previous line);
 *   equal runs become matches and differing bytes literals, and after a difference both cursors
 *   jump to the end of the differing value (the next `,` `:` `}` `]` `"` or newline), so numbers of
 *   different lengths realign. Every match is verified byte for byte, so the output is always a
 *   correct encoding of the input, however bad the guess;
 * - a match that reaches the end of a line continues into the next line while it still matches
 *   (the `{"id":1234` prefix of consecutive events), saving a token per line;
 * - one dynamic-Huffman DEFLATE block (RFC 1951) with codes built from the counted symbols, inside
 *   one gzip member (RFC 1952), so members concatenate as today's zlib members do.
 *
 * Input that is not line-shaped (few matches) goes to zlib instead, so output size never regresses
 * far; see `gzipLines`.
 */
import { crc32, gzipSync } from "node:zlib";
import { DeflateTokens, MIN_MATCH, WINDOW, gzipMember } from "./deflate-block.js";

/**
 * Value delimiters of JSON text: a difference is resolved by skipping to the next one in both
 * lines. The newline is one too, so a cursor never walks past the end of a differing line.
 */
const DELIM = new Uint8Array(256);
for (const c of ',:}]"\n') DELIM[c.charCodeAt(0)] = 1;

/** Shape table: hash of a line's leading structure → start of the last line with that hash. */
const SHAPE_BITS = 12;
/** Words (4 bytes) after a line's id that make its shape: `,"name":"read","cat":"POSIX","pid":42`. */
const SHAPE_WORDS = 10;
/** String table: hash of a quoted string's contents → where it last began. */
const STRING_BITS = 12;

/**
 * Scratch space reused across calls: the writer thread compresses one batch at a time, and
 * allocating a few MiB per batch would cost more than filling them.
 */
let bytesScratch = Buffer.allocUnsafe(0);
/**
 * The input as a DataView: equal runs are compared 8 and 4 bytes at a time at any offset
 * (TurboFan turns little-endian DataView reads into plain loads), where a JS byte loop costs about
 * as much per byte as a word compare per word.
 */
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
const tokens = new DeflateTokens();
const shapes = new Int32Array(1 << SHAPE_BITS);
const strings = new Int32Array(1 << STRING_BITS);

/**
 * Gzips `text` (a string, or its UTF-8 bytes) as one gzip member: a file of several such
 * members reads back as the concatenation of their texts with `gunzip` or `zlib.gunzipSync`.
 *
 * Cheapest on JSON-lines text whose lines repeat a few shapes (trace events). Other input is
 * handed to zlib at `fallbackLevel`: when fewer than half its bytes end up in matches, the line
 * model does not apply and zlib's search will do better.
 */
export function gzipLines(text: string | Buffer, fallbackLevel = 1): Buffer {
  // A Buffer, not a plain Uint8Array: Buffer's indexOf is memchr, a TypedArray's a slow generic loop.
  let bytes = text as Buffer;
  if (typeof text === "string") {
    const maxBytes = text.length * 3;
    if (bytesScratch.length < maxBytes)
      bytesScratch = Buffer.allocUnsafe(Math.max(maxBytes, 1 << 16));
    bytes = bytesScratch.subarray(0, bytesScratch.write(text, 0, "utf8"));
  }
  const n = bytes.length;
  view = new DataView(bytes.buffer, bytes.byteOffset, n);
  tokens.reset(n + 1); // a token per byte at most

  const count = tokenize(bytes, n);
  if (count < 0) return gzipSync(bytes, { level: fallbackLevel });
  return gzipMember(tokens, count, crc32(bytes), n);
}

/**
 * LZ77 pass: fills `tokens` and the symbol counts; returns the token count, or -1 when the input
 * does not look like repeated lines (more than half its bytes are literals).
 *
 * Written as one loop over local variables (no closures over mutable state, which V8 would keep
 * in a heap context and make every access in the loop slower).
 */
function tokenize(b: Buffer, n: number): number {
  shapes.fill(-1);
  strings.fill(-1);
  const st = state;
  st.t = 0;
  st.mLen = 0;
  st.prevLine = -1;
  for (let c = 0; c < n; ) c = tokenizeLine(b, n, c, st);
  if (st.mLen > 0) st.t = emitMatch(b, st.mStart, st.mLen, st.mDist, st.t);
  let literals = 0;
  for (let k = 0; k < 256; k++) literals += tokens.litFreq[k]!;
  return literals * 2 > n ? -1 : st.t;
}

/** What `tokenizeLine` carries from one line to the next. */
interface LineState {
  /** Tokens so far. */
  t: number;
  /** The open match: emitted when it stops matching, so that it may run on into the next line. */
  mStart: number;
  mLen: number;
  mDist: number;
  /** Start of the previous line, or -1. */
  prevLine: number;
}
const state: LineState = { t: 0, mStart: 0, mLen: 0, mDist: 0, prevLine: -1 };

/**
 * Tokenizes the line starting at `c`; returns where the next one starts. A function per line
 * rather than one loop over the batch: V8 then optimizes it as an ordinary hot function instead of
 * on-stack-replacing a long loop, whose code deoptimizes at the first path it has not seen.
 */
function tokenizeLine(b: Buffer, n: number, c: number, st: LineState): number {
  const tok = tokens.buf;
  const lf = tokens.litFreq;
  const strs = strings;
  let t = st.t;
  let mStart = st.mStart;
  let mLen = st.mLen;
  let mDist = st.mDist;
  {
    // The line is [c, end): its newline included, if any.
    let nl = b.indexOf(10, c);
    const end = nl < 0 ? n : nl + 1;
    if (nl < 0) nl = n;

    // Shape: the SHAPE_WORDS words after the id (`,"name":"…","cat":"…"…`), or, on a short
    // line, the bytes up to the 10th quote with digits skipped. A shape is only a guess at the
    // reference line: a collision costs size, never correctness.
    let h = 0;
    let p = c;
    if (b[c + 1] === 34 && b[c + 2] === 105 && b[c + 3] === 100) {
      p = c + 6; // past `{"id":`
      while (p < nl && b[p]! >= 48 && b[p]! <= 57) p++;
    }
    if (nl - p >= 4 * SHAPE_WORDS) {
      const dv = view;
      for (let k = p, kEnd = p + 4 * SHAPE_WORDS; k < kEnd; k += 4) h = (Math.imul(h, 0x01000193) ^ dv.getInt32(k, true)) | 0;
    } else {
      let quotes = 0;
      for (let k = c; k < nl && k < c + 96; k++) {
        const x = b[k]!;
        if (x >= 48 && x <= 57) continue;
        h = (Math.imul(h, 31) + x) | 0;
        if (x === 34 && ++quotes === 10) break;
      }
    }
    const slot = Math.imul(h, 0x9e3779b1) >>> (32 - SHAPE_BITS);
    let ref = shapes[slot]!;
    shapes[slot] = c;
    if (ref < 0 || c - ref > WINDOW) ref = st.prevLine;
    st.prevLine = c;

    let i = c;
    // Carry the open match from the previous line on as far as it still matches.
    if (mLen > 0) {
      i = equalRunEnd(b, c, mDist, end);
      mLen += i - c;
      if (i < end) {
        t = emitMatch(b, mStart, mLen, mDist, t);
        mLen = 0;
      }
    }
    let j = ref >= 0 && c - ref <= WINDOW ? ref + (i - c) : -1;

    while (i < end) {
      if (j >= 0 && b[i] === b[j]) {
        // An equal run: extend it as far as it goes within this line.
        const s = i;
        const d = i - j;
        i = equalRunEnd(b, i, d, end);
        j = i - d;
        if (d > WINDOW) {
          for (let k = s; k < i; k++) {
            tok[t++] = b[k]!;
            lf[b[k]!]!++;
          }
          j = -1;
          continue;
        }
        if (i < end) {
          t = emitMatch(b, s, i - s, d, t);
        } else {
          // It stays open for the next line.
          mStart = s;
          mLen = i - s;
          mDist = d;
        }
        continue;
      }
      const x = b[i]!;
      // A differing string value (right after its opening quote): an earlier line may hold the
      // same string (a file hash seen a few events ago) even if the reference line does not.
      if (DELIM[x] === 0 && b[i - 1] === 34 && i > c) {
        let q = i;
        let sh = 0;
        const qEnd = Math.min(nl, i + 80);
        while (q < qEnd && b[q] !== 34) {
          sh = (Math.imul(sh, 31) + b[q]!) | 0;
          q++;
        }
        if (q < qEnd && q - i >= MIN_MATCH) {
          const sslot = Math.imul(sh, 0x9e3779b1) >>> (32 - STRING_BITS);
          const p = strs[sslot]!;
          strs[sslot] = i;
          if (p >= 0 && i - p <= WINDOW) {
            const d = i - p;
            const s = i;
            i = equalRunEnd(b, i, d, end);
            if (i - s >= q - s) {
              // The whole string matched (and maybe more): realign the reference after its own
              // copy of the string, as if the two strings had had the same length.
              if (j >= 0) {
                while (j < i && b[j] !== 34) j++;
                j += i - q;
                if (j >= i) j = -1;
              }
              if (i < end) t = emitMatch(b, s, i - s, d, t);
              else {
                mStart = s;
                mLen = i - s;
                mDist = d;
              }
              continue;
            }
            i = s;
          }
        }
      }
      // A difference. Skip the rest of the differing value in each line: literals in this one,
      // nothing in the reference. If both sit on (different) delimiters, skip one value each.
      if (j < 0 || DELIM[x] === 0 || DELIM[b[j]!] !== 0) {
        do {
          const y = b[i++]!;
          tok[t++] = y;
          lf[y]!++;
        } while (i < end && DELIM[b[i]!] === 0);
        if (j >= 0) {
          if (DELIM[x] !== 0) j++;
          while (j < i && DELIM[b[j]!] === 0) j++;
          if (j >= i) j = -1;
        }
      } else {
        while (j < i && DELIM[b[j]!] === 0) j++;
        if (j >= i) j = -1;
      }
    }
    st.t = t;
    st.mStart = mStart;
    st.mLen = mLen;
    st.mDist = mDist;
    return end;
  }
}

/**
 * Where the run of bytes equal to those `d` back, starting at `i`, ends (at most `end`). Eight
 * bytes at a time, then four, then byte by byte. Equal doubles have equal bits but for ±0 (and NaN
 * is never equal): zeros are left to the exact 4-byte compare.
 */
function equalRunEnd(b: Uint8Array, i: number, d: number, end: number): number {
  const dv = view;
  while (i + 8 <= end) {
    const a = dv.getFloat64(i, true);
    if (a !== dv.getFloat64(i - d, true) || a === 0) break;
    i += 8;
  }
  while (i + 4 <= end) {
    const x = dv.getInt32(i, true) ^ dv.getInt32(i - d, true);
    if (x !== 0) return i + ((31 - Math.clz32(x & -x)) >> 3); // the first differing byte
    i += 4;
  }
  while (i < end && b[i] === b[i - d]) i++;
  return i;
}

/**
 * Appends the match [start, start+len) at distance `dist` to the tokens: as literals when shorter
 * than 3. Returns the new token count.
 */
function emitMatch(b: Uint8Array, start: number, len: number, dist: number, t: number): number {
  if (len >= MIN_MATCH) return tokens.match(t, len, dist);
  const tok = tokens.buf;
  const lf = tokens.litFreq;
  for (let k = 0; k < len; k++) {
    const y = b[start + k]!;
    tok[t++] = y;
    lf[y]!++;
  }
  return t;
}
