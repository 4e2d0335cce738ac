/**
 * Length-limited canonical Huffman codes for DEFLATE (RFC 1951 §3.2.2), for deflate-block.ts.
 * Alphabets are small (at most 286 symbols) and codes are built once per
 * gzip member, so clarity matters more here than speed.
 */

/**
 * Code lengths for `freqs` (0 for unused symbols), none longer than `maxBits`.
 *
 * Every code returned is complete (a full binary tree): zlib's inflate rejects incomplete
 * code-length codes and incomplete lit/len codes of more than one symbol, so when fewer than two
 * symbols are used we give a second one (the lowest unused) a small weight rather than emit a
 * one-symbol code.
 *
 * Plain Huffman can exceed `maxBits` on skewed counts; we then halve the counts (keeping every used
 * symbol at least 1) and rebuild. That flattens the tree a little at a small cost in size, and
 * terminates: at equal counts the depth is ceil(log2(used symbols)) ≤ 9 for 286 symbols.
 */
export function codeLengths(freqs: Uint32Array, maxBits: number): Uint8Array {
  const n = freqs.length;
  const w = Float64Array.from(freqs);
  let used = 0;
  for (let s = 0; s < n; s++) if (w[s]! > 0) used++;
  for (let s = 0; s < n && used < 2; s++) {
    if (w[s] === 0) {
      w[s] = 1;
      used++;
    }
  }
  const lengths = new Uint8Array(n);
  for (;;) {
    if (huffmanDepths(w, lengths) <= maxBits) return lengths;
    for (let s = 0; s < n; s++)
      if (w[s]! > 0) w[s] = Math.max(1, Math.floor(w[s]! / 2));
  }
}

/**
 * Unrestricted Huffman depths into `out`; returns the largest. Two-queue construction: leaves
 * sorted by weight, and internal nodes, which are created in non-decreasing weight order, so the
 * two lightest are always at the front of one queue or the other.
 */
function huffmanDepths(w: Float64Array, out: Uint8Array): number {
  out.fill(0);
  // The leaves sorted by weight, then symbol: as keys weight·512 + symbol (exact in a double:
  // weights are whole counts below 2^32, symbols below 512) in a typed array, whose sort needs no
  // comparator calls.
  const keys = new Float64Array(w.length);
  let m = 0;
  for (let s = 0; s < w.length; s++) if (w[s]! > 0) keys[m++] = w[s]! * 512 + s;
  keys.subarray(0, m).sort();
  // Nodes 0..m-1 are the leaves (in sorted order), m.. the internal nodes.
  const leaves = new Int32Array(m);
  const weight = new Float64Array(2 * m);
  for (let k = 0; k < m; k++) {
    const s = keys[k]! % 512;
    leaves[k] = s;
    weight[k] = w[s]!;
  }
  const parent = new Int32Array(2 * m).fill(-1);
  let leaf = 0;
  let inner = m;
  for (let next = m; next < 2 * m - 1; next++) {
    // The two lightest nodes, each from the front of one queue or the other.
    for (let child = 0; child < 2; child++) {
      const fromLeaves = leaf < m && (inner >= next || weight[leaf]! <= weight[inner]!);
      const n = fromLeaves ? leaf++ : inner++;
      weight[next] = child === 0 ? weight[n]! : weight[next]! + weight[n]!;
      parent[n] = next;
    }
  }
  // The root is the last node created; parents always come after their children, so depths fill
  // in one backward pass.
  const depth = new Uint8Array(2 * m);
  let max = 0;
  for (let k = 2 * m - 3; k >= 0; k--) {
    const d = depth[parent[k]!]! + 1;
    depth[k] = d;
    if (k < m) {
      out[leaves[k]!] = d;
      if (d > max) max = d;
    }
  }
  return max;
}

/**
 * Canonical codes (RFC 1951 §3.2.2) for `lengths`, bit-reversed so that a writer filling bytes from
 * the least significant bit emits them most significant bit first, as DEFLATE requires of Huffman
 * codes (and only of them).
 */
export function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const count = new Uint16Array(16);
  for (let s = 0; s < lengths.length; s++) count[lengths[s]!]!++;
  count[0] = 0;
  const nextCode = new Uint16Array(16);
  let code = 0;
  for (let bits = 1; bits < 16; bits++) {
    code = (code + count[bits - 1]!) << 1;
    nextCode[bits] = code;
  }
  const codes = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const len = lengths[s]!;
    if (len === 0) continue;
    const c = nextCode[len]!;
    nextCode[len] = c + 1;
    let rev = 0;
    for (let b = 0; b < len; b++) rev |= ((c >>> b) & 1) << (len - 1 - b);
    codes[s] = rev;
  }
  return codes;
}
