/**
 * A gzip member of any bytes, in JavaScript: what threads that may be terminated at any
 * instruction compress with. Node's zlib creates its native stream and initializes it in two
 * steps; a worker terminated between them leaves an uninitialized stream, and tearing down the
 * worker's environment then aborts the whole process (node_zlib.cc: "close before init").
 * Greedy LZ77 with one hash probe per position (zlib -1's strategy), written by deflate-block.ts.
 */
import { CRC_START, crcBytes, crcFinish } from './crc32.js';
import { DeflateTokens, MAX_MATCH, WINDOW, gzipMember } from './deflate-block.js';

const HASH_BITS = 15;
/** Matches start from 4 equal bytes (the hashed word); shorter ones rarely pay in a DEFLATE block. */
const HASHED = 4;
/** Inside matches up to this long every position is hashed; longer ones only at their end (as zlib -1). */
const INSERT_WITHIN = 32;

const tokens = new DeflateTokens();
/**
 * Per hash, the last position with it, as `base + index`: each call takes a fresh range of values
 * (base grows past the last), so older entries read as out of window and a small member needs no
 * clearing of the whole table.
 */
const head = new Int32Array(1 << HASH_BITS);
let base = 0;

/** The gzip member of `data` (one dynamic-Huffman block), as `gunzip` and zlib read it. */
export function jsGzip(data: Uint8Array): Buffer {
  const n = data.length;
  tokens.reset(n + 1);
  const lf = tokens.litFreq;
  const tok = tokens.buf;
  if (base > 2 ** 30 - n) {
    head.fill(0);
    base = 0;
  }
  const b0 = base + WINDOW + 1;
  base = b0 + n;
  let t = 0;
  let i = 0;
  const last = n - HASHED;
  while (i <= last) {
    const h = hash(data, i);
    const c = head[h]! - b0;
    head[h] = b0 + i;
    if (i - c <= WINDOW && data[c] === data[i] && data[c + 1] === data[i + 1] && data[c + 2] === data[i + 2] && data[c + 3] === data[i + 3]) {
      const max = Math.min(MAX_MATCH * 64, n - i);
      let len = HASHED;
      while (len < max && data[c + len] === data[i + len]) len++;
      t = tokens.match(t, len, i - c);
      const end = i + len;
      let k = len <= INSERT_WITHIN ? i + 1 : end - 1;
      for (; k < end && k <= last; k++) head[hash(data, k)] = b0 + k;
      i = end;
    } else {
      const b = data[i]!;
      tok[t++] = b;
      lf[b]!++;
      i++;
    }
  }
  for (; i < n; i++) {
    const b = data[i]!;
    tok[t++] = b;
    lf[b]!++;
  }
  return gzipMember(tokens, t, crcFinish(crcBytes(CRC_START, data, 0, n)), n);
}

function hash(d: Uint8Array, i: number): number {
  return Math.imul(d[i]! | (d[i + 1]! << 8) | (d[i + 2]! << 16) | (d[i + 3]! << 24), 0x9e3779b1) >>> (32 - HASH_BITS);
}
