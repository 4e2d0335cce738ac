/**
 * The back end of the hand-written encoder (RFC 1951 in an RFC 1952 gzip member): a batch's LZ77
 * tokens, counted as they are added, written as one dynamic-Huffman block with codes built from the
 * counts. How the matches are found is event-gzip.ts's business.
 */
import { BitWriter } from './bit-writer.js';
import { canonicalCodes, codeLengths } from './huffman.js';

export const WINDOW = 32768;
export const MIN_MATCH = 3;
export const MAX_MATCH = 258;
/** Match tokens are `len << 16 | dist`; anything below this is a literal byte. */
export const LIT_LIMIT = 256;
const END_OF_BLOCK = 256;

/** Length symbol (257..285), its extra-bit count and base, indexed by match length (RFC 1951 §3.2.5). */
const LEN_SYM = new Uint16Array(MAX_MATCH + 1);
const LEN_EXTRA = new Uint8Array(MAX_MATCH + 1);
const LEN_BASE = new Uint16Array(MAX_MATCH + 1);
{
  // Codes 257..264 carry lengths 3..10 exactly; then each group of four codes doubles its span.
  let sym = 257;
  let base = 3;
  for (let extra = 0; extra <= 5; extra++) {
    for (let k = 0; k < (extra === 0 ? 8 : 4); k++, sym++) {
      for (
        let len = base;
        len < base + (1 << extra) && len < MAX_MATCH;
        len++
      ) {
        LEN_SYM[len] = sym;
        LEN_EXTRA[len] = extra;
        LEN_BASE[len] = base;
      }
      base += 1 << extra;
    }
  }
  // 258 has its own code, 285 with no extra bits (284 + 31 would also spell it, but not validly).
  LEN_SYM[MAX_MATCH] = 285;
  LEN_EXTRA[MAX_MATCH] = 0;
  LEN_BASE[MAX_MATCH] = MAX_MATCH;
}

/**
 * Distance symbol (0..29) of `dist`: codes 0..3 are distances 1..4, then two codes per power of
 * two, told apart by the bit below the top bit of dist-1.
 */
function distSym(dist: number): number {
  const x = dist - 1;
  if (x < 4) return x;
  const top = 31 - Math.clz32(x);
  return 2 * top + ((x >>> (top - 1)) & 1);
}

/** Order in which code-length code lengths are sent (RFC 1951 §3.2.7). */
const CL_ORDER = [
  16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/**
 * A block's tokens: a literal byte as itself, a match as `distSym << 25 | len << 16 | dist` (the
 * distance symbol is needed twice, to count and to write). Encoders keep the
 * token count in a local while they add tokens (`buf[t++] = byte; litFreq[byte]++`) and pass it to
 * `match`, which returns the new count.
 */
export class DeflateTokens {
  // Empty until the first `reset`: a field that has held one value only is taken by V8 as
  // constant, and code compiled on that assumption (the encoder's, during its first batch) was
  // thrown away when the buffer first grew. Assigned by `reset`, it is never constant.
  buf = new Uint32Array(0);
  readonly litFreq = new Uint32Array(286);
  readonly distFreq = new Uint32Array(30);

  /** Clears the counts; `capacity`: the most tokens the caller will add before `ensure` (if ever). Called first. */
  reset(capacity: number): void {
    if (this.buf.length < capacity) this.buf = new Uint32Array(Math.max(capacity, this.buf.length * 2));
    this.litFreq.fill(0);
    this.distFreq.fill(0);
  }

  /** Makes room for `more` tokens after the first `t`. */
  ensure(t: number, more: number): Uint32Array {
    if (t + more > this.buf.length) {
      const next = new Uint32Array(Math.max(t + more, this.buf.length * 2));
      next.set(this.buf.subarray(0, t));
      this.buf = next;
    }
    return this.buf;
  }

  /**
   * Adds a match of `len` ≥ MIN_MATCH bytes `dist` back, in pieces of at most 258 bytes, each at
   * least 3. Returns the new token count.
   */
  match(t: number, len: number, dist: number): number {
    // An encoder bug, never data: better a lost batch (the writer reports it) than a corrupt member.
    if (len < MIN_MATCH || dist < 1 || dist > WINDOW) throw new RangeError(`invalid DEFLATE match: ${len} bytes ${dist} back`);
    const tok = this.buf;
    const lf = this.litFreq;
    const ds = distSym(dist);
    while (len > 0) {
      let l = len > MAX_MATCH ? MAX_MATCH : len;
      if (len - l > 0 && len - l < MIN_MATCH) l = len - MIN_MATCH;
      tok[t++] = (ds << 25) | (l << 16) | dist;
      lf[LEN_SYM[l]!]!++;
      this.distFreq[ds]!++;
      len -= l;
    }
    return t;
  }
}

let outScratch = new Uint8Array(0);

/**
 * One gzip member: header, one dynamic-Huffman block of the first `count` tokens, trailer with the
 * CRC-32 and size of the uncompressed bytes (the caller's: neither is derivable from tokens).
 */
export function gzipMember(tokens: DeflateTokens, count: number, crc: number, size: number): Buffer {
  // Worst case: 15 bits per literal, 48 bits per match token (≥ 3 bytes), plus the block header
  // (at most ~ (19·3 + 320·7) bits) and the gzip framing.
  const bound = 6 * count + 1024;
  if (outScratch.length < bound) outScratch = new Uint8Array(Math.max(bound, 1 << 16));
  const out = outScratch;
  // RFC 1952 header: magic, CM=8 (deflate), no flags, no mtime, XFL=0, OS=3 (Unix), as zlib writes.
  out.set(GZIP_HEADER, 0);
  const w = new BitWriter(out, 10);

  const litFreq = tokens.litFreq;
  litFreq[END_OF_BLOCK]!++;
  const litLen = codeLengths(litFreq, 15);
  const distLen = codeLengths(tokens.distFreq, 15);
  const litCode = canonicalCodes(litLen);
  const distCode = canonicalCodes(distLen);
  w.bits(1, 1); // BFINAL
  w.bits(2, 2); // BTYPE = dynamic Huffman
  writeCodeLengths(w, litLen, distLen);

  // A short call first: a first call over a whole batch would have its loop compiled while running
  // (OSR) before the stores after it had ever run, and that code would deoptimize at those stores
  // on every later batch. 64 tokens run the stores with feedback kept, before the loop is compiled.
  const head = Math.min(count, 64);
  writeTokens(w, tokens.buf, 0, head, litCode, litLen, distCode, distLen);
  writeTokens(w, tokens.buf, head, count, litCode, litLen, distCode, distLen);
  w.bits(litCode[END_OF_BLOCK]!, litLen[END_OF_BLOCK]!);
  let pos = w.finish();

  // RFC 1952 trailer: CRC-32 and length mod 2^32, little-endian.
  for (const v of [crc, size >>> 0]) {
    out[pos++] = v & 0xff;
    out[pos++] = (v >>> 8) & 0xff;
    out[pos++] = (v >>> 16) & 0xff;
    out[pos++] = (v >>> 24) & 0xff;
  }
  return Buffer.from(out.subarray(0, pos));
}

const GZIP_HEADER = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];

/**
 * The block's symbols. The bit writer's state lives in locals here (this loop is most of the
 * writing time), flushing two bytes whenever 16 bits have gathered: each part added after a flush
 * is at most 15 bits, so the 32-bit accumulator never overflows. A match's distance symbol comes
 * with its token (see `match`).
 */
function writeTokens(
  w: BitWriter,
  tok: Uint32Array,
  from: number,
  to: number,
  litCode: Uint16Array,
  litLen: Uint8Array,
  distCode: Uint16Array,
  distLen: Uint8Array
): void {
  const out = w.out;
  let pos = w.pos;
  let acc = w.acc;
  let nb = w.n;
  for (let k = from; k < to; k++) {
    const v = tok[k]!;
    if (v < LIT_LIMIT) {
      acc |= litCode[v]! << nb;
      nb += litLen[v]!;
    } else {
      const len = (v >>> 16) & 0x1ff;
      const ls = LEN_SYM[len]!;
      acc |= litCode[ls]! << nb;
      nb += litLen[ls]!;
      if (nb >= 16) {
        out[pos++] = acc & 0xff;
        out[pos++] = (acc >>> 8) & 0xff;
        acc >>>= 16;
        nb -= 16;
      }
      acc |= (len - LEN_BASE[len]!) << nb;
      nb += LEN_EXTRA[len]!;
      if (nb >= 16) {
        out[pos++] = acc & 0xff;
        out[pos++] = (acc >>> 8) & 0xff;
        acc >>>= 16;
        nb -= 16;
      }
      const ds = v >>> 25;
      acc |= distCode[ds]! << nb;
      nb += distLen[ds]!;
      if (ds >= 4) {
        if (nb >= 16) {
          out[pos++] = acc & 0xff;
          out[pos++] = (acc >>> 8) & 0xff;
          acc >>>= 16;
          nb -= 16;
        }
        const de = (ds >>> 1) - 1;
        acc |= (((v & 0xffff) - 1) & ((1 << de) - 1)) << nb;
        nb += de;
      }
    }
    if (nb >= 16) {
      out[pos++] = acc & 0xff;
      out[pos++] = (acc >>> 8) & 0xff;
      acc >>>= 16;
      nb -= 16;
    }
  }
  w.pos = pos;
  w.acc = acc;
  w.n = nb;
}

/**
 * The block header after BTYPE: HLIT, HDIST, HCLEN, the code-length code, then the lit/len and
 * distance code lengths as one sequence, run-length coded with symbols 16 (repeat the previous
 * length 3–6 times), 17 (3–10 zeros) and 18 (11–138 zeros) (RFC 1951 §3.2.7).
 */
function writeCodeLengths(
  w: BitWriter,
  litLen: Uint8Array,
  distLen: Uint8Array
): void {
  let hlit = 286;
  while (hlit > 257 && litLen[hlit - 1] === 0) hlit--;
  let hdist = 30;
  while (hdist > 1 && distLen[hdist - 1] === 0) hdist--;
  const seq = CL_SEQ;
  seq.set(litLen.subarray(0, hlit), 0);
  seq.set(distLen.subarray(0, hdist), hlit);
  const n = hlit + hdist;

  // Run-length code the sequence into symbols and their extra values. Typed arrays and an index,
  // not pushes and iterators: this runs once per batch, and V8's optimized code for it (and the
  // time to compile it) grows with every array growth path inlined.
  const syms = CL_SYMS;
  const extras = CL_EXTRAS;
  let m = 0;
  for (let k = 0; k < n; ) {
    const v = seq[k]!;
    let run = 1;
    while (k + run < n && seq[k + run] === v) run++;
    k += run;
    if (v === 0) {
      while (run >= 11) {
        const r = Math.min(run, 138);
        syms[m] = 18;
        extras[m++] = r - 11;
        run -= r;
      }
      if (run >= 3) {
        syms[m] = 17;
        extras[m++] = run - 3;
        run = 0;
      }
    } else {
      syms[m] = v;
      extras[m++] = 0;
      run--;
      while (run >= 3) {
        const r = Math.min(run, 6);
        syms[m] = 16;
        extras[m++] = r - 3;
        run -= r;
      }
    }
    for (; run > 0; run--) {
      syms[m] = v;
      extras[m++] = 0;
    }
  }

  const clFreq = new Uint32Array(19);
  for (let k = 0; k < m; k++) clFreq[syms[k]!]!++;
  const clLen = codeLengths(clFreq, 7);
  const clCode = canonicalCodes(clLen);
  let hclen = 19;
  while (hclen > 4 && clLen[CL_ORDER[hclen - 1]!] === 0) hclen--;

  w.bits(hlit - 257, 5);
  w.bits(hdist - 1, 5);
  w.bits(hclen - 4, 4);
  for (let k = 0; k < hclen; k++) w.bits(clLen[CL_ORDER[k]!]!, 3);
  for (let k = 0; k < m; k++) {
    const s = syms[k]!;
    w.bits(clCode[s]!, clLen[s]!);
    if (s >= 16) w.bits(extras[k]!, CL_EXTRA_BITS[s - 16]!);
  }
}

/** writeCodeLengths' scratch: at most 286 + 30 lengths, and a symbol per length at most. */
const CL_SEQ = new Uint8Array(286 + 30);
const CL_SYMS = new Uint8Array(286 + 30);
const CL_EXTRAS = new Uint8Array(286 + 30);
/** Extra bits of code-length symbols 16, 17 and 18. */
const CL_EXTRA_BITS = [2, 3, 7];
