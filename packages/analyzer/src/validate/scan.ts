/**
 * Byte-level JSON scanning primitives for the validator's fast path. Every function takes the
 * line's buffer and a position and returns the position after what it matched, or -1.
 *
 * Invariant relied on throughout: the byte just past a line's end is `\n` (10). No literal here
 * contains 10, and every loop stops at a byte < 32, so nothing can run past the line.
 */

export const enum Byte {
  TAB = 9,
  NL = 10,
  CR = 13,
  SPACE = 32,
  QUOTE = 34,
  PLUS = 43,
  COMMA = 44,
  MINUS = 45,
  DOT = 46,
  ZERO = 48,
  NINE = 57,
  COLON = 58,
  LBRACKET = 91,
  BACKSLASH = 92,
  RBRACKET = 93,
  LBRACE = 123,
  RBRACE = 125,
}

/** Bytes of an ASCII literal. */
export function lit(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, 'latin1'));
}

/** Match literal `l` at `p`. */
export function matchLit(buf: Uint8Array, p: number, l: Uint8Array): number {
  const n = l.length;
  for (let i = 0; i < n; i++) if (buf[p + i] !== l[i]) return -1;
  return p + n;
}

/** Scan a JSON string body starting just after its opening quote; returns the index of the closing quote. */
export function scanStringBody(buf: Uint8Array, p: number): number {
  for (;;) {
    const c = buf[p]!;
    if (c === Byte.QUOTE) return p;
    if (c === Byte.BACKSLASH) {
      const e = buf[p + 1]!;
      if (e === 117 /* u */) {
        for (let k = 2; k < 6; k++) if (!isHex(buf[p + k]!)) return -1;
        p += 6;
        continue;
      }
      // " \ / b f n r t
      if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        p += 2;
        continue;
      }
      return -1;
    }
    if (c < Byte.SPACE) return -1; // control character, or the end of the line
    p++;
  }
}

export function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** True when [p, p+16) is 16 lowercase hex digits followed by a quote. */
export function isHash16(buf: Uint8Array, p: number, q: number): boolean {
  if (q - p !== 16) return false;
  for (let i = p; i < q; i++) {
    const c = buf[i]!;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** A JSON number per RFC 8259; returns the position after it. */
export function scanNumber(buf: Uint8Array, p: number): number {
  if (buf[p] === Byte.MINUS) p++;
  let c = buf[p]!;
  if (c === Byte.ZERO) {
    p++;
  } else if (c > Byte.ZERO && c <= Byte.NINE) {
    do c = buf[++p]!;
    while (c >= Byte.ZERO && c <= Byte.NINE);
  } else return -1;
  c = buf[p]!;
  if (c === Byte.DOT) {
    c = buf[++p]!;
    if (!(c >= Byte.ZERO && c <= Byte.NINE)) return -1;
    do c = buf[++p]!;
    while (c >= Byte.ZERO && c <= Byte.NINE);
  }
  if (c === 101 || c === 69) {
    c = buf[++p]!;
    if (c === Byte.PLUS || c === Byte.MINUS) c = buf[++p]!;
    if (!(c >= Byte.ZERO && c <= Byte.NINE)) return -1;
    do c = buf[++p]!;
    while (c >= Byte.ZERO && c <= Byte.NINE);
  }
  return p;
}

function skipWs(buf: Uint8Array, p: number): number {
  let c = buf[p];
  while (c === Byte.SPACE || c === Byte.TAB || c === Byte.CR) c = buf[++p];
  return p;
}

const TRUE = lit('true');
const FALSE = lit('false');
const NULL = lit('null');

/** Any JSON value (whitespace allowed around tokens); returns the position after it. */
export function scanValue(buf: Uint8Array, p: number, depth = 0): number {
  const c = buf[p]!;
  if (c === Byte.QUOTE) {
    const q = scanStringBody(buf, p + 1);
    return q < 0 ? -1 : q + 1;
  }
  if (c === Byte.MINUS || (c >= Byte.ZERO && c <= Byte.NINE)) return scanNumber(buf, p);
  if (c === Byte.LBRACE) return depth > 64 ? -1 : scanObjectBody(buf, p + 1, depth + 1);
  if (c === Byte.LBRACKET) {
    if (depth > 64) return -1;
    p = skipWs(buf, p + 1);
    if (buf[p] === Byte.RBRACKET) return p + 1;
    for (;;) {
      p = scanValue(buf, p, depth + 1);
      if (p < 0) return -1;
      p = skipWs(buf, p);
      const d = buf[p];
      if (d === Byte.RBRACKET) return p + 1;
      if (d !== Byte.COMMA) return -1;
      p = skipWs(buf, p + 1);
    }
  }
  if (c === 116) return matchLit(buf, p, TRUE);
  if (c === 102) return matchLit(buf, p, FALSE);
  if (c === 110) return matchLit(buf, p, NULL);
  return -1;
}

/** An object body after its `{`; returns the position after the closing `}`. */
export function scanObjectBody(buf: Uint8Array, p: number, depth: number): number {
  p = skipWs(buf, p);
  if (buf[p] === Byte.RBRACE) return p + 1;
  for (;;) {
    if (buf[p] !== Byte.QUOTE) return -1;
    p = scanStringBody(buf, p + 1);
    if (p < 0) return -1;
    p = skipWs(buf, p + 1);
    if (buf[p] !== Byte.COLON) return -1;
    p = scanValue(buf, skipWs(buf, p + 1), depth);
    if (p < 0) return -1;
    p = skipWs(buf, p);
    const d = buf[p];
    if (d === Byte.RBRACE) return p + 1;
    if (d !== Byte.COMMA) return -1;
    p = skipWs(buf, p + 1);
  }
}
