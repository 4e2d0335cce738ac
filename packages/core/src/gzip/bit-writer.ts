/**
 * DEFLATE's bit order (RFC 1951 §3.1.1): values are packed starting at the least significant bit
 * of each byte. Bits gather in a 32-bit accumulator and leave two bytes at a time, so each `bits`
 * call is a shift, an or and (every other call or so) two byte stores.
 */
export class BitWriter {
  /**
   * Pending bits, the oldest in the low end; fewer than 16 between calls. Public so that a hot
   * loop can copy the state into locals and back (see deflate-block.ts writeTokens).
   */
  acc = 0;
  n = 0;
  pos: number;

  constructor(readonly out: Uint8Array, start = 0) {
    this.pos = start;
  }

  /** Appends the low `len` bits of `value` (len ≤ 16, higher bits of value clear). */
  bits(value: number, len: number): void {
    let acc = this.acc | (value << this.n);
    let n = this.n + len;
    if (n >= 16) {
      const out = this.out;
      let pos = this.pos;
      out[pos++] = acc & 0xff;
      out[pos++] = (acc >>> 8) & 0xff;
      this.pos = pos;
      acc >>>= 16;
      n -= 16;
    }
    this.acc = acc;
    this.n = n;
  }

  /** Pads the last partial byte with zero bits; returns the end offset of the output. */
  finish(): number {
    let pos = this.pos;
    let acc = this.acc;
    for (let n = this.n; n > 0; n -= 8) {
      this.out[pos++] = acc & 0xff;
      acc >>>= 8;
    }
    this.pos = pos;
    this.acc = 0;
    this.n = 0;
    return pos;
  }
}
