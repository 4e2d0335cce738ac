/**
 * The ids one process has used in a run: a bitset over a window that grows to cover them (a
 * process's ids are a counter's values, close together, but in a merged trace they may start far
 * from 0), and a Set for ids of 2^30 and beyond.
 */
export class IdSet {
  private base = 0;
  private bits = new Uint8Array(0);
  private big: Set<number> | null = null;

  /** Add `id` (≥ 0); true when it was there already. */
  add(id: number): boolean {
    if (id >= 2 ** 30) {
      const s = (this.big ??= new Set());
      if (s.has(id)) return true;
      s.add(id);
      return false;
    }
    let i = id - this.base;
    if (i < 0 || i >= this.bits.length * 8) {
      this.fit(id);
      i = id - this.base;
    }
    const byte = i >>> 3;
    const bit = 1 << (i & 7);
    const was = this.bits[byte]!;
    if (was & bit) return true;
    this.bits[byte] = was | bit;
    return false;
  }

  has(id: number): boolean {
    if (id >= 2 ** 30) return this.big?.has(id) ?? false;
    const i = id - this.base;
    return i >= 0 && i < this.bits.length * 8 && (this.bits[i >>> 3]! & (1 << (i & 7))) !== 0;
  }

  /** Grow the window to cover `id`, by at least its size each time (ids may also go downwards). */
  private fit(id: number): void {
    const len = this.bits.length * 8;
    let lo = this.base;
    let hi = this.base + len;
    if (len === 0) {
      lo = Math.max(0, id - 1024);
      hi = id + 1024;
    } else if (id < lo) lo = Math.max(0, Math.min(id, lo - len));
    else hi = Math.max(id + 1, hi + len);
    lo -= lo & 7;
    const b = new Uint8Array(Math.ceil((hi - lo) / 8));
    if (len > 0) b.set(this.bits, (this.base - lo) >> 3);
    this.bits = b;
    this.base = lo;
  }
}
