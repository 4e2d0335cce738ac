/**
 * CRC-32 (the gzip trailer's, RFC 1952) of text that is never built. The event encoder knows each
 * line as pieces — constant fragments and a few changing numbers — so it advances the CRC register
 * over a constant piece of length L in one step instead of L: the register update is linear over
 * GF(2), so running bytes B from register c gives `shift_L(c) ^ run(0, B)`, where `shift_L` (running
 * L zero bytes) is a fixed linear map, applied as four 256-entry tables, one per byte of c.
 *
 * Registers here are raw (no pre/post inversion); `crcFinish` turns a raw register started at
 * `CRC_START` into the CRC-32 value zlib's `crc32` returns.
 */

/** Reflected CRC-32 (polynomial 0xEDB88320), one byte per step. */
export const CRC_TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c;
}

/** The raw register at the start of a CRC-32. */
export const CRC_START = -1;

/** The CRC-32 value (unsigned) of a raw register started at CRC_START. */
export function crcFinish(c: number): number {
  return ~c >>> 0;
}

/** Runs bytes [from, to) of `b` through raw register `c`. */
export function crcBytes(c: number, b: Uint8Array, from: number, to: number): number {
  const t = CRC_TABLE;
  for (let k = from; k < to; k++) c = t[(c ^ b[k]!) & 0xff]! ^ (c >>> 8);
  return c;
}

/**
 * The map `c → shift_len(c)` as 1024 entries: entry 256·j + v is the image of byte value v in byte
 * position j of the register. Built once per distinct length and kept.
 */
export function shiftMap(len: number): Int32Array {
  let m = shiftMaps[len];
  if (m === undefined) {
    m = len === 0 ? identityMap() : len === 1 ? oneByteMap() : compose(shiftMap(len >> 1), shiftMap(len - (len >> 1)));
    shiftMaps[len] = m;
  }
  return m;
}

/** `shift_len(c)` with the map of shiftMap(len). */
export function crcShift(c: number, m: Int32Array): number {
  return m[c & 0xff]! ^ m[256 + ((c >>> 8) & 0xff)]! ^ m[512 + ((c >>> 16) & 0xff)]! ^ m[768 + (c >>> 24)]!;
}

const shiftMaps: Int32Array[] = [];

/**
 * Tables for the CRC of decimal digits without a chain of table steps. A digit d is the byte
 * 0x30 ^ d, and the raw CRC from a zero register is linear in the bytes, so the CRC of n digits is
 * `zeros[n]` (n '0' characters) XOR, per digit, `byteAt[16·j + d]` (byte d followed by j zero
 * bytes, j counted from the text's end): lookups that do not wait on one another. The same holds
 * for a change: digits d replacing e change the CRC by `byteAt[16·j + (d ^ e)]` each.
 * For texts of up to `n` digits.
 */
export function digitCrcTables(n: number): { byteAt: Int32Array; zeros: Int32Array } {
  const byteAt = new Int32Array(16 * n);
  for (let j = 0; j < n; j++) for (let x = 0; x < 16; x++) byteAt[16 * j + x] = crcShift(CRC_TABLE[x]!, shiftMap(j));
  const zeros = new Int32Array(n + 1);
  for (let k = 1; k <= n; k++) zeros[k] = CRC_TABLE[(zeros[k - 1]! ^ 0x30) & 0xff]! ^ (zeros[k - 1]! >>> 8);
  return { byteAt, zeros };
}

function identityMap(): Int32Array {
  const m = new Int32Array(1024);
  for (let j = 0; j < 4; j++) for (let v = 0; v < 256; v++) m[256 * j + v] = v << (8 * j);
  return m;
}

function oneByteMap(): Int32Array {
  const m = identityMap();
  for (let k = 0; k < 1024; k++) {
    const c = m[k]!;
    m[k] = CRC_TABLE[c & 0xff]! ^ (c >>> 8);
  }
  return m;
}

/** The map "a, then b". */
function compose(a: Int32Array, b: Int32Array): Int32Array {
  const m = new Int32Array(1024);
  for (let k = 0; k < 1024; k++) m[k] = crcShift(a[k]!, b);
  return m;
}
