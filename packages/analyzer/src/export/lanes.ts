/**
 * Lane assignment for one track's slices, fed in (start ascending, end descending) order: a slice
 * goes to the first lane where it nests inside what is open or starts after it; a slice that
 * partially overlaps every lane opens a new one. Lane 0 is the track itself. Used where a viewer
 * needs disjoint-or-nested slices per row: the Perfetto export and the report's timeline.
 */
export class LaneAssigner {
  /** Per lane, the ends of the open slices, innermost last. */
  private readonly lanes: number[][] = [];
  /** Nesting depth (0 = top) of the slice placed last. */
  depth = 0;

  /** The lane where [s, e] nests or fits after what is open. */
  place(s: number, e: number): number {
    let k = 0;
    for (; k < this.lanes.length; k++) {
      const st = this.lanes[k]!;
      while (st.length > 0 && st[st.length - 1]! <= s) st.pop();
      if (st.length === 0 || e <= st[st.length - 1]!) break;
    }
    if (k === this.lanes.length) this.lanes.push([]);
    const st = this.lanes[k]!;
    st.push(e);
    this.depth = st.length - 1;
    return k;
  }

  get count(): number {
    return this.lanes.length;
  }
}
