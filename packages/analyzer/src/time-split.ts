/**
 * The I/O / compute / overlap split of `summary`, computed over the events' columns in memory.
 *
 * - I/O time of a process: the length of the union of its I/O intervals.
 * - Compute time: the length of the union of the *self time* of its compute events: each one's
 *   interval minus its children's (found by `p_idx` in the same process, on any thread or lane),
 *   the children clipped to it.
 * - Either: the union of both; overlap = io + compute − either.
 * - All: the union of I/O, compute self time and the intervals of "other" events (loop waits,
 *   pipeline spans); other = all − either, the time in those spans with neither I/O nor compute.
 *
 * A union's length needs no pairing of starts with ends: the number of intervals covering t is
 * the number of starts ≤ t minus the number of ends ≤ t. So starts and ends are sorted apart
 * (integer radix sorts) and swept together, the three unions in one pass.
 */
import { sortIntegers } from './sort-integers.js';

/** One row per complete event; `group` numbers the processes 0 … groups − 1 (all 0 when absent). */
export interface SplitColumns {
  rows: number;
  groups: number;
  group?: Uint32Array;
  id: Float64Array;
  /** The parent's id, or a negative number for none. */
  parent: Float64Array;
  ts: Float64Array;
  te: Float64Array;
  /** 1 I/O, 2 compute, 3 other, anything else neither (the tracer's own events). */
  kind: Uint8Array;
}

/** Per group: the lengths of the I/O union, the compute self-time union and their union. */
export interface SplitLengths {
  io: Float64Array;
  compute: Float64Array;
  either: Float64Array;
  /** The union of I/O, compute self time and other events' intervals. */
  all: Float64Array;
}

const IO = 1;
const COMPUTE = 2;
const OTHER = 3;

const isParent = (c: SplitColumns, r: number) => c.kind[r] === COMPUTE && c.te[r]! > c.ts[r]!;
const groupOf = (c: SplitColumns, r: number) => (c.group === undefined ? 0 : c.group[r]!);

/**
 * Rows of compute events with a positive length, looked up by (group, id). Ids of a trace are
 * nearly dense (1, 2, 3, …), so a table indexed by id per group is used when it stays within a few
 * times the row count; otherwise an open-addressing hash table (a Map of 10 M keys costs seconds).
 */
class ParentIndex {
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Dense mode: group g's ids [lo[g], lo[g] + span) are at slots[at[g] + id − lo[g]]. */
  private readonly lo: Float64Array | null = null;
  private readonly hi: Float64Array | null = null;
  private readonly at: Float64Array | null = null;

  constructor(private readonly c: SplitColumns) {
    const lo = new Float64Array(c.groups).fill(Infinity);
    const hi = new Float64Array(c.groups).fill(-Infinity);
    let parents = 0;
    for (let r = 0; r < c.rows; r++) {
      if (!isParent(c, r)) continue;
      parents++;
      const g = groupOf(c, r);
      const i = c.id[r]!;
      if (i < lo[g]!) lo[g] = i;
      if (i > hi[g]!) hi[g] = i;
    }
    const at = new Float64Array(c.groups + 1);
    for (let g = 0; g < c.groups; g++) at[g + 1] = at[g]! + (hi[g]! >= lo[g]! ? hi[g]! - lo[g]! + 1 : 0);
    const span = at[c.groups]!;
    if (span <= 4 * c.rows + 1024) {
      this.lo = lo;
      this.hi = hi;
      this.at = at;
      this.slots = new Int32Array(span).fill(-1);
      this.mask = 0;
      for (let r = 0; r < c.rows; r++) {
        if (!isParent(c, r)) continue;
        const g = groupOf(c, r);
        const s = at[g]! + c.id[r]! - lo[g]!;
        if (this.slots[s]! < 0) this.slots[s] = r; // a duplicate id: the first one wins
      }
      return;
    }
    let size = 16;
    while (size < parents * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let r = 0; r < c.rows; r++) if (isParent(c, r)) this.insert(r);
  }

  private hash(group: number, id: number): number {
    // ids are integers, possibly above 2^32: fold the high part in
    const lo = id >>> 0;
    const hi = (id / 4294967296) >>> 0;
    return (Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) ^ Math.imul(group, 0xc2b2ae35)) & this.mask;
  }

  private insert(r: number): void {
    const { id } = this.c;
    const g = groupOf(this.c, r);
    for (let s = this.hash(g, id[r]!); ; s = (s + 1) & this.mask) {
      const o = this.slots[s]!;
      if (o < 0) {
        this.slots[s] = r;
        return;
      }
      if (id[o] === id[r] && groupOf(this.c, o) === g) return; // a duplicate id: the first one wins
    }
  }

  /** The row of the compute event `id` in `group`, or -1. */
  find(g: number, i: number): number {
    if (this.lo) {
      if (!(i >= this.lo[g]! && i <= this.hi![g]!)) return -1;
      return this.slots[this.at![g]! + i - this.lo[g]!]!;
    }
    const { id } = this.c;
    for (let s = this.hash(g, i); ; s = (s + 1) & this.mask) {
      const o = this.slots[s]!;
      if (o < 0 || (id[o] === i && groupOf(this.c, o) === g)) return o;
    }
  }
}

/** (group, start, end) interval lists of a known size; the group only when there are several. */
class Intervals {
  readonly group: Float64Array | null;
  readonly start: Float64Array;
  readonly end: Float64Array;
  length = 0;

  constructor(capacity: number, groups: number) {
    this.group = groups > 1 ? new Float64Array(capacity) : null;
    this.start = new Float64Array(capacity);
    this.end = new Float64Array(capacity);
  }

  push(g: number, s: number, e: number): void {
    if (this.group !== null) this.group[this.length] = g;
    this.start[this.length] = s;
    this.end[this.length] = e;
    this.length++;
  }
}

/**
 * The self-time segments of every compute event: its interval minus the union of its children's
 * (clipped to it). Children are gathered per parent (a counting sort on the parent's row), then
 * each parent walks its children by start: once to count its segments, once to write them.
 */
function computeSegments(c: SplitColumns): Intervals {
  const index = new ParentIndex(c);
  // the row of r's parent when r is a child that hides some of a compute parent, else -1
  const parentRow = (r: number): number => {
    const p = c.parent[r]!;
    if (!(p >= 0)) return -1;
    const q = index.find(groupOf(c, r), p);
    if (q < 0 || q === r || Math.min(c.te[r]!, c.te[q]!) <= Math.max(c.ts[r]!, c.ts[q]!)) return -1;
    return q;
  };
  // counts, then prefix sums, then a fill that leaves row q's children at [at[q], at[q + 1])
  const at = new Int32Array(c.rows + 2);
  for (let r = 0; r < c.rows; r++) {
    const q = parentRow(r);
    if (q >= 0) at[q + 2]!++;
  }
  for (let r = 2; r <= c.rows + 1; r++) at[r]! += at[r - 1]!;
  const cs = new Float64Array(at[c.rows + 1]!);
  const ce = new Float64Array(at[c.rows + 1]!);
  for (let r = 0; r < c.rows; r++) {
    const q = parentRow(r);
    if (q < 0) continue;
    const k = at[q + 1]!++;
    cs[k] = Math.max(c.ts[r]!, c.ts[q]!);
    ce[k] = Math.min(c.te[r]!, c.te[q]!);
  }

  const walk = (r: number, emit: (s: number, e: number) => void): void => {
    let reach = c.ts[r]!;
    for (let k = at[r]!, end = at[r + 1]!; k < end; k++) {
      if (cs[k]! > reach) emit(reach, cs[k]!);
      if (ce[k]! > reach) reach = ce[k]!;
    }
    if (c.te[r]! > reach) emit(reach, c.te[r]!);
  };
  let segments = 0;
  const count = () => void segments++;
  for (let r = 0; r < c.rows; r++) {
    if (!isParent(c, r)) continue;
    sortByStart(cs, ce, at[r]!, at[r + 1]!);
    walk(r, count);
  }
  const out = new Intervals(segments, c.groups);
  for (let r = 0; r < c.rows; r++) {
    if (!isParent(c, r)) continue;
    const g = groupOf(c, r);
    walk(r, (s, e) => out.push(g, s, e));
  }
  return out;
}

/** Sort the pairs (s[k], e[k]) for a ≤ k < b by s; children usually arrive in order already. */
function sortByStart(s: Float64Array, e: Float64Array, a: number, b: number): void {
  let sorted = true;
  for (let k = a + 1; k < b && sorted; k++) sorted = s[k - 1]! <= s[k]!;
  if (sorted) return;
  const order = Array.from({ length: b - a }, (_, i) => a + i).sort((x, y) => s[x]! - s[y]!);
  const ss = order.map((k) => s[k]!);
  const ee = order.map((k) => e[k]!);
  s.set(ss, a);
  e.set(ee, a);
}

/** Starts and ends of one kind, grouped (counting sort by group), each group's values sorted. */
interface Sorted {
  /** Group g's values are [at[g], at[g + 1]). */
  at: Int32Array;
  start: Float64Array;
  end: Float64Array;
}

function groupAndSort(iv: Intervals, groups: number, base: Float64Array, scratch: Float64Array): Sorted {
  const n = iv.length;
  const at = new Int32Array(groups + 1);
  let start = iv.start.subarray(0, n);
  let end = iv.end.subarray(0, n);
  // relative to the group's earliest time, so the radix sort runs on small integers
  if (iv.group === null) {
    at[groups] = n;
    const b = base[0]!;
    for (let k = 0; k < n; k++) {
      start[k]! -= b;
      end[k]! -= b;
    }
  } else {
    const group = iv.group;
    for (let k = 0; k < n; k++) at[group[k]! + 1]!++;
    for (let g = 0; g < groups; g++) at[g + 1]! += at[g]!;
    start = new Float64Array(n);
    end = new Float64Array(n);
    const fill = at.slice(0, groups);
    for (let k = 0; k < n; k++) {
      const g = group[k]!;
      const j = fill[g]!++;
      start[j] = iv.start[k]! - base[g]!;
      end[j] = iv.end[k]! - base[g]!;
    }
  }
  for (let g = 0; g < groups; g++) {
    sortIntegers(start.subarray(at[g]!, at[g + 1]!), scratch);
    sortIntegers(end.subarray(at[g]!, at[g + 1]!), scratch);
  }
  return { at, start, end };
}

/** The three union lengths per group. */
export function splitTime(c: SplitColumns): SplitLengths {
  const base = new Float64Array(c.groups).fill(Infinity);
  let ios = 0;
  let others = 0;
  for (let r = 0; r < c.rows; r++) {
    const g = groupOf(c, r);
    if (c.ts[r]! < base[g]!) base[g] = c.ts[r]!;
    if (c.te[r]! > c.ts[r]!) {
      if (c.kind[r] === IO) ios++;
      else if (c.kind[r] === OTHER) others++;
    }
  }
  const io = new Intervals(ios, c.groups);
  const other = new Intervals(others, c.groups);
  for (let r = 0; r < c.rows; r++) {
    if (!(c.te[r]! > c.ts[r]!)) continue;
    if (c.kind[r] === IO) io.push(groupOf(c, r), c.ts[r]!, c.te[r]!);
    else if (c.kind[r] === OTHER) other.push(groupOf(c, r), c.ts[r]!, c.te[r]!);
  }
  const segments = computeSegments(c);
  const scratch = new Float64Array(Math.max(io.length, segments.length, other.length));
  const a = groupAndSort(io, c.groups, base, scratch);
  const b = groupAndSort(segments, c.groups, base, scratch);
  const o = groupAndSort(other, c.groups, base, scratch);
  const out: SplitLengths = { io: new Float64Array(c.groups), compute: new Float64Array(c.groups), either: new Float64Array(c.groups), all: new Float64Array(c.groups) };
  for (let g = 0; g < c.groups; g++) {
    let i0 = a.at[g]!; // next I/O start
    let i1 = i0; // next I/O end
    const iEnd = a.at[g + 1]!;
    let c0 = b.at[g]!;
    let c1 = c0;
    const cEnd = b.at[g + 1]!;
    let o0 = o.at[g]!;
    let o1 = o0;
    const oEnd = o.at[g + 1]!;
    let nIo = 0;
    let nComp = 0;
    let nOther = 0;
    let prev = 0;
    let lenIo = 0;
    let lenComp = 0;
    let lenEither = 0;
    let lenAll = 0;
    // every start comes no later than its end, so the ends run out last
    while (i1 < iEnd || c1 < cEnd || o1 < oEnd) {
      let t = Infinity;
      let which = 0;
      if (i0 < iEnd && a.start[i0]! < t) (t = a.start[i0]!), (which = 0);
      if (i1 < iEnd && a.end[i1]! < t) (t = a.end[i1]!), (which = 1);
      if (c0 < cEnd && b.start[c0]! < t) (t = b.start[c0]!), (which = 2);
      if (c1 < cEnd && b.end[c1]! < t) (t = b.end[c1]!), (which = 3);
      if (o0 < oEnd && o.start[o0]! < t) (t = o.start[o0]!), (which = 4);
      if (o1 < oEnd && o.end[o1]! < t) (t = o.end[o1]!), (which = 5);
      if (t > prev) {
        const dt = t - prev;
        if (nIo > 0) lenIo += dt;
        if (nComp > 0) lenComp += dt;
        if (nIo > 0 || nComp > 0) lenEither += dt;
        if (nIo > 0 || nComp > 0 || nOther > 0) lenAll += dt;
        prev = t;
      }
      if (which === 0) nIo++, i0++;
      else if (which === 1) nIo--, i1++;
      else if (which === 2) nComp++, c0++;
      else if (which === 3) nComp--, c1++;
      else if (which === 4) nOther++, o0++;
      else nOther--, o1++;
    }
    out.io[g] = lenIo;
    out.compute[g] = lenComp;
    out.either[g] = lenEither;
    out.all[g] = lenAll;
  }
  return out;
}
