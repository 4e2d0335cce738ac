/**
 * Numbers as the trace text writes them, digit by digit into a byte array: the byte formatter
 * (event-bytes.ts) writes lines without building strings.
 */
import { numberText } from './line-format.js';

/** 10^n for the digit counts of safe integers (and one more). */
export const POW10: readonly number[] = Array.from({ length: 18 }, (_, n) => 10 ** n);

/**
 * Writes v's text into `out` at `at` (ASCII, at most 24 bytes) and returns its length: integers by
 * arithmetic, anything else (fractions, huge or non-finite values) as formatLine writes it
 * (`json`: numberText, else String).
 */
export function numberDigits(v: number, out: Uint8Array, json: boolean, at = 0): number {
  if ((v | 0) === v && v >= 0) return smallDigits(v, out, at); // most fields and args: int32 math only
  if (Number.isSafeInteger(v)) {
    if (v >= 0) return unsignedDigits(v, out, at);
    out[at] = 45; // '-'
    return 1 + unsignedDigits(-v, out, at + 1);
  }
  if (v === 0) {
    out[at] = 48; // -0 → "0"
    return 1;
  }
  const s = json ? numberText(v) : String(v);
  for (let k = 0; k < s.length; k++) out[at + k] = s.charCodeAt(k);
  return s.length;
}

function unsignedDigits(v: number, out: Uint8Array, o: number): number {
  if (v <= 0x7fffffff) return smallDigits(v, out, o);
  // Above int32 (timestamps ~1.7e15): the high part, then the low eight digits zero-padded, in int32 math.
  const hi = Math.floor(v / 1e8);
  const at = smallDigits(hi, out, o) + o;
  pairsBack((v - hi * 1e8) | 0, out, at + 8, at);
  return at - o + 8;
}

/** The digits of 0 ≤ v ≤ 2^31 - 1 at out[o…]; returns how many (so does unsignedDigits). */
function smallDigits(v: number, out: Uint8Array, o: number): number {
  const n = v < 1e4 ? (v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4) : v < 1e6 ? (v < 1e5 ? 5 : 6) : v < 1e8 ? (v < 1e7 ? 7 : 8) : v < 1e9 ? 9 : 10;
  pairsBack(v | 0, out, o + n, o);
  return n;
}

/** Writes int32 x's digits backwards from out[end - 1] down to out[start] (zero-padded), two at a time. */
function pairsBack(x: number, out: Uint8Array, end: number, start: number): void {
  let k = end;
  while (k - start >= 2) {
    const q = (x / 100) | 0;
    const r = (x - q * 100) << 1;
    out[--k] = DIGIT_PAIRS[r + 1]!;
    out[--k] = DIGIT_PAIRS[r]!;
    x = q;
  }
  if (k > start) out[--k] = 48 + x;
}

/** "00", "01", … "99" as ASCII: a division by 100 yields two digits. */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, k) => 48 + (k & 1 ? (k >> 1) % 10 : ((k >> 1) / 10) | 0));
