/**
 * The sweep's lookup by event id: for each id in use, the running events with it (head of a list)
 * and how many running children name it as parent (two counts). An open-addressing table on
 * typed arrays: it holds only ids of running events and of their parents (a few dozen), so it
 * stays small and allocates nothing per event, where a `Map` of numbers cost a third of the pass.
 */
export class IdTable {
  private keys = new Float64Array(64);
  private used = new Uint8Array(64);
  /** Per entry: running event slot (head), running children counted twice (split, self time). */
  head = new Int32Array(64);
  kidsA = new Int32Array(64);
  kidsB = new Int32Array(64);
  private mask = 63;
  private count = 0;

  private slotOf(id: number): number {
    // ids are integers (possibly beyond 2^32): fold the high part in
    const lo = id >>> 0;
    const hi = (id / 4294967296) | 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> 0;
  }

  /** The entry of `id`, or -1. */
  find(id: number): number {
    for (let i = this.slotOf(id) & this.mask; ; i = (i + 1) & this.mask) {
      if (!this.used[i]) return -1;
      if (this.keys[i] === id) return i;
    }
  }

  /** The entry of `id`, made empty (head -1, no children) when new. */
  get(id: number): number {
    let i = this.slotOf(id) & this.mask;
    for (; this.used[i]; i = (i + 1) & this.mask) if (this.keys[i] === id) return i;
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.grow();
      return this.get(id);
    }
    this.used[i] = 1;
    this.keys[i] = id;
    this.head[i] = -1;
    this.kidsA[i] = 0;
    this.kidsB[i] = 0;
    this.count++;
    return i;
  }

  /** Drop entry `i` when nothing refers to it any more (backward-shift deletion: no tombstones). */
  release(i: number): void {
    if (this.head[i] !== -1 || this.kidsA[i] !== 0 || this.kidsB[i] !== 0) return;
    this.used[i] = 0;
    this.count--;
    for (let j = (i + 1) & this.mask; this.used[j]; j = (j + 1) & this.mask) {
      const home = this.slotOf(this.keys[j]!) & this.mask;
      // entry j may move back to the hole at i when its home is not in (i, j]
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
        this.keys[i] = this.keys[j]!;
        this.head[i] = this.head[j]!;
        this.kidsA[i] = this.kidsA[j]!;
        this.kidsB[i] = this.kidsB[j]!;
        this.used[i] = 1;
        this.used[j] = 0;
        i = j;
      }
    }
  }

  clear(): void {
    this.used.fill(0);
    this.count = 0;
  }

  private grow(): void {
    const { keys, used, head, kidsA, kidsB } = this;
    const n = (this.mask + 1) * 2;
    this.keys = new Float64Array(n);
    this.used = new Uint8Array(n);
    this.head = new Int32Array(n);
    this.kidsA = new Int32Array(n);
    this.kidsB = new Int32Array(n);
    this.mask = n - 1;
    this.count = 0;
    for (let i = 0; i < used.length; i++) {
      if (!used[i]) continue;
      const j = this.get(keys[i]!);
      this.head[j] = head[i]!;
      this.kidsA[j] = kidsA[i]!;
      this.kidsB[j] = kidsB[i]!;
    }
  }
}
