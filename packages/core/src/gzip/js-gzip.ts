/**
 * A gzip member of any bytes, in JavaScript: what threads that may be terminated at any
 * instruction compress with. Node's zlib creates its native stream and initializes it in two
 * steps; a worker terminated between them leaves an uninitialized stream, and tearing down the
 * worker's environment then aborts the whole process (node_zlib.cc: "close before init").
 * Greedy LZ77 over hash chains, a few probes per position (zlib -1's strategy), written by
 * deflate-block.ts.
 */
import { CRC_START, crcBytes, crcFinish } from './crc32.js';
import { DeflateTokens, MAX_MATCH, WINDOW, gzipMember } from './deflate-block.js';

const HASH_BITS = 15;
/** Matches start from 4 equal bytes (the hashed word); shorter ones rarely pay in a DEFLATE block. */
const HASHED = 4;
/** Inside matches up to this long every position is hashed; longer ones only at their end (as zlib -1). */
const INSERT_WITHIN = 32;

/** Earlier positions with the same hash looked at for a longer match (zlib -1 looks at 4). */
const PROBES = 4;
const MASK = WINDOW - 1;

const tokens = new DeflateTokens();
/**
 * Per hash, the last position with it, as `base + index`: each call takes a fresh range of values
 * (base grows past the last), so older entries read as out of window and a small member needs no
 * clearing of the whole table.
 */
const head = new Int32Array(1 << HASH_BITS);
/** Per position (mod the window), the previous position with its hash, as in `head`. */
const prev = new Int32Array(WINDOW);
let base = 0;

/** The gzip member of `data` (one dynamic-Huffman block), as `gunzip` and zlib read it. */
export function jsGzip(data: Uint8Array): Buffer {
  const n = data.length;
  tokens.reset(n + 1);
  const lf = tokens.litFreq;
  const tok = tokens.buf;
  if (base > 2 ** 30 - n) {
    head.fill(0);
    prev.fill(0);
    base = 0;
  }
  const b0 = base + WINDOW + 1;
  base = b0 + n;
  let t = 0;
  let i = 0;
  const last = n - HASHED;
  while (i <= last) {
    const h = hash(data, i);
    let c = head[h]! - b0;
    prev[i & MASK] = head[h]!;
    head[h] = b0 + i;
    const max = Math.min(MAX_MATCH * 64, n - i);
    let best = 0;
    let dist = 0;
    for (let p = 0; p < PROBES && c >= 0 && i - c <= WINDOW; p++) {
      // A longer match must also differ nowhere up to the best one's end: test that byte first.
      if (data[c + best] === data[i + best] && data[c] === data[i] && data[c + 1] === data[i + 1] && data[c + 2] === data[i + 2] && data[c + 3] === data[i + 3]) {
        let len = HASHED;
        while (len < max && data[c + len] === data[i + len]) len++;
        if (len > best) {
          best = len;
          dist = i - c;
          if (len === max) break;
        }
      }
      const next = prev[c & MASK]! - b0;
      // A slot overwritten by a newer position ends the chain.
      if (next >= c) break;
      c = next;
    }
    if (best >= HASHED) {
      t = tokens.match(t, best, dist);
      const end = i + best;
      let k = best <= INSERT_WITHIN ? i + 1 : end - 1;
      for (; k < end && k <= last; k++) {
        const hk = hash(data, k);
        prev[k & MASK] = head[hk]!;
        head[hk] = b0 + k;
      }
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
