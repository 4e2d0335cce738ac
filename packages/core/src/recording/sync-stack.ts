import { grown } from './typed-arrays.js';

/**
 * The spans of one thread that end within the current synchronous stretch: they nest like a call
 * stack. Entries are typed-array slots, not objects, so opening and closing a span allocates
 * nothing; the start time lives here too, where V8 cannot box it.
 */
export class SyncStack {
  id = new Float64Array(64);
  level = new Int32Array(64);
  tid = new Float64Array(64);
  parent = new Float64Array(64);
  /** Start times of spans opened by ThreadTracer.enterFast (µs). */
  start = new Float64Array(64);
  /** 1 when a region was stopped while something above it still ran: skipped as a parent. */
  closed = new Uint8Array(64);
  depth = 0;

  /** The 1-based depth of the innermost entry that is not closed; 0 when there is none. */
  top(): number {
    let d = this.depth;
    while (d > 0 && this.closed[d - 1] === 1) d--;
    return d;
  }

  /** Opens an entry; returns its 1-based depth. */
  push(id: number, level: number, tid: number, parent: number): number {
    if (this.depth === this.id.length) this.grow();
    const d = this.depth++;
    this.id[d] = id;
    this.level[d] = level;
    this.tid[d] = tid;
    this.parent[d] = parent;
    this.closed[d] = 0;
    return d + 1;
  }

  /**
   * Leaves the entry at 1-based `depth` holding `id`. A call (wrapper, within) unwinds everything
   * above it, like a call stack; a region stopped under something still running is only marked
   * closed, so the running span above keeps its place.
   */
  pop(depth: number, id: number, region: boolean): void {
    const i = depth - 1;
    if (i >= this.depth || this.id[i] !== id) return; // already gone (region demoted)
    if (region && i !== this.depth - 1) {
      this.closed[i] = 1;
      return;
    }
    this.depth = i;
    while (this.depth > 0 && this.closed[this.depth - 1] === 1) this.depth--;
  }

  private grow(): void {
    const n = this.id.length * 2;
    this.id = grown(this.id, n);
    this.level = grown(this.level, n);
    this.tid = grown(this.tid, n);
    this.parent = grown(this.parent, n);
    this.start = grown(this.start, n);
    this.closed = grown(this.closed, n);
  }
}
