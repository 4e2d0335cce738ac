/**
 * Every interval figure of `summary` from one pass over the events sorted by (process, start):
 * busy and self time per name and category, the I/O / compute split per process, busy time per
 * directory, and the figures of each process, epoch and step window.
 *
 * The pass keeps only the events running at the current time (a heap by end), so its memory is
 * the nesting depth times the lanes, not the trace. Self time needs no segments: an event runs
 * "on its own" while it runs and none of its children does, so each event counts its running
 * children (children by `p_idx` — clipped to the parent, as both must run — or, for events
 * without one, the enclosing event on their thread) and a union per key counts the events
 * running on their own.
 */

import { IdTable } from './id-table.js';
import { BIT_DEV, BIT_DUR_NULL, KIND_WINDOW, OP_SHIFT, type TotalsChunk } from './group-totals.js';
import { grown, type GrowableArray } from '../../typed-arrays.js';

/**
 * Per event, in the order the pass takes them: by process, then start (null last), longer first.
 * Events without a start (ts NaN) only count in the totals (`group-totals.ts`). The epoch and step
 * windows come in the same stream, as rows of kind KIND_WINDOW (key: level 0 process, 1 epoch,
 * 2 step; id: wid; ts, te: its start and end) before the events that start with them.
 */
export interface TimelineChunk extends TotalsChunk {
  rows: number;
  /** Process index (0 … processes − 1, in order). */
  g: Float64Array;
  /** NaN: null. */
  ts: Float64Array;
  /** ts + dur (dur null: ts). */
  te: Float64Array;
  /** NaN: none. */
  tid: Float64Array;
  /** -1: none. */
  id: Float64Array;
  /** -1 or negative: no parent; -2: no p_idx (the parent is found by nesting when `nest` is on). */
  parent: Float64Array;
  /** Index into `TimelineKeys`. */
  key: Float64Array;
  /** 0 tracer, 1 I/O, 2 compute, 3 other (`kindSql`). */
  kind: Float64Array;
}

/** What each (cat, name) key is. */
export interface TimelineKeys {
  /** Category index of each key. */
  cat: Int32Array;
  cats: number;
  /** Counted in busy and self time (cat not `dftracer`, not null): it also nests and hides time. */
  host: Uint8Array;
  /** A data-loader wait name (for kind-3 events). */
  wait: Uint8Array;
  /** Neither a wait nor a window span: its self time is "other" work in the windows. */
  other: Uint8Array;
}

export const WINDOW_FIGURES = ['compute', 'io', 'wait', 'overlap', 'io_only', 'other', 'busy', 'bytes_read'] as const;
export type WindowFigure = (typeof WINDOW_FIGURES)[number];

export interface TimelineResult {
  /** Per key (cat, name): union of its spans, of their self time (per process, summed). */
  busyByKey: Float64Array;
  selfByKey: Float64Array;
  busyByCat: Float64Array;
  selfByCat: Float64Array;
  /** Per directory: union of I/O calls on its files. */
  busyByDir: Float64Array;
  /** Per process: I/O union, compute self-time union (p_idx children only), either, all (with other spans). */
  io: Float64Array;
  compute: Float64Array;
  either: Float64Array;
  all: Float64Array;
}

/**
 * Called once for every window (its wid, level and wall time) when the pass is past it, with its
 * WINDOW_FIGURES.length figures (a view reused once the call returns).
 */
export type WindowDone = (wid: number, level: number, wall: number, figures: Float64Array) => void;

/**
 * One level's windows the pass has reached and not yet passed, in start order (they do not
 * overlap), with their figures: a queue, so only the windows of the current time are held.
 */
class WindowQueue {
  head = 0;
  tail = 0;
  ws = new Float64Array(16);
  we = new Float64Array(16);
  wid = new Float64Array(16);
  fig = new Float64Array(16 * WINDOW_FIGURES.length);

  push(ws: number, we: number, wid: number): void {
    if (this.tail === this.ws.length) this.makeRoom();
    const j = this.tail++;
    this.ws[j] = ws;
    this.we[j] = we;
    this.wid[j] = wid;
    this.fig.fill(0, j * WINDOW_FIGURES.length, (j + 1) * WINDOW_FIGURES.length);
  }

  /** Hand the front window over. */
  shift(l: number, done: WindowDone): void {
    const j = this.head++;
    const F = WINDOW_FIGURES.length;
    done(this.wid[j]!, l, this.we[j]! - this.ws[j]!, this.fig.subarray(j * F, (j + 1) * F));
    if (this.head === this.tail) this.head = this.tail = 0;
  }

  private makeRoom(): void {
    const n = this.tail - this.head;
    const F = WINDOW_FIGURES.length;
    if (n * 2 > this.ws.length) {
      // more than half in use: twice the room
      const cap = this.ws.length * 2;
      this.ws = grown(this.ws, cap);
      this.we = grown(this.we, cap);
      this.wid = grown(this.wid, cap);
      this.fig = grown(this.fig, cap * F);
    }
    this.ws.copyWithin(0, this.head, this.tail);
    this.we.copyWithin(0, this.head, this.tail);
    this.wid.copyWithin(0, this.head, this.tail);
    this.fig.copyWithin(0, this.head * F, this.tail * F);
    this.head = 0;
    this.tail = n;
  }
}

/** A union's length per index: counts how many intervals cover the current time. */
class Unions {
  private readonly cnt: Int32Array;
  private readonly open: Float64Array;
  readonly len: Float64Array;
  constructor(n: number) {
    this.cnt = new Int32Array(n);
    this.open = new Float64Array(n);
    this.len = new Float64Array(n);
  }
  inc(i: number, t: number): void {
    if (this.cnt[i]!++ === 0) this.open[i] = t;
  }
  dec(i: number, t: number): void {
    if (--this.cnt[i]! === 0) this.len[i]! += t - this.open[i]!;
  }
}

const FIGURES = WINDOW_FIGURES.length;

/**
 * The window figures a state adds its time to (state bits: 1 I/O, 2 compute self time, 4 data
 * wait, 8 other self time), so a window's figures add up as time passes, with no per-window
 * table of states.
 */
const STATE_FIGURES: Uint8Array[] = Array.from({ length: 16 }, (_, st) => {
  const i = (st & 1) !== 0;
  const c = (st & 2) !== 0;
  const wt = (st & 4) !== 0;
  const q = (st & 8) !== 0;
  const f: number[] = [];
  if (st === 0) return new Uint8Array(0);
  if (c) f.push(0);
  if (i) f.push(1);
  if (wt && !c) f.push(2);
  if (i && c) f.push(3);
  if (i && !(c || wt)) f.push(4);
  if (q && !(c || i || wt)) f.push(5);
  f.push(6);
  return Uint8Array.from(f);
});

const F_HOST = 1;
const F_DEV = 2;
const F_WAIT = 4;
const F_OTHER = 8;
/** Registered as a p_idx child (relation A: the split's; B: self time's). */
const F_CHILD_A = 16;
const F_CHILD_B = 32;
const F_SELF_A = 64;
const F_SELF_B = 128;

/** The running events: parallel arrays by slot, grown on demand. */
class Running {
  size = 0;
  te = new Float64Array(64);
  key = new Int32Array(64);
  kind = new Uint8Array(64);
  flags = new Int32Array(64);
  id = new Float64Array(64);
  parent = new Float64Array(64);
  dir = new Int32Array(64);
  seq = new Float64Array(64);
  /** Running children: by p_idx (the split), by p_idx or nesting (self time). */
  kidsA = new Int32Array(64);
  kidsB = new Int32Array(64);
  /** The slot (and its seq) of the enclosing event a nested child hides time of; -1 none. */
  nestSlot = new Int32Array(64);
  nestSeq = new Float64Array(64);
  /** Next running slot with the same id (-1 end). */
  sameId = new Int32Array(64);
  private free: number[] = [];

  alloc(): number {
    const s = this.free.pop();
    if (s !== undefined) return s;
    if (this.size === this.te.length) this.grow();
    return this.size++;
  }
  release(s: number): void {
    this.free.push(s);
  }
  reset(): void {
    this.size = 0;
    this.free = [];
  }
  private grow(): void {
    const n = this.te.length * 2;
    const g = <T extends GrowableArray>(a: T): T => grown(a, n);
    this.te = g(this.te);
    this.key = g(this.key);
    this.kind = g(this.kind);
    this.flags = g(this.flags);
    this.id = g(this.id);
    this.parent = g(this.parent);
    this.dir = g(this.dir);
    this.seq = g(this.seq);
    this.kidsA = g(this.kidsA);
    this.kidsB = g(this.kidsB);
    this.nestSlot = g(this.nestSlot);
    this.nestSeq = g(this.nestSeq);
    this.sameId = g(this.sameId);
  }
}

/** Min-heap of running slots by end time. */
class EndHeap {
  private h = new Int32Array(64);
  n = 0;
  constructor(private readonly r: Running) {}
  push(s: number): void {
    if (this.n === this.h.length) this.h = grown(this.h, this.n * 2);
    const te = this.r.te;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (te[this.h[p]!]! <= te[s]!) break;
      this.h[i] = this.h[p]!;
      i = p;
    }
    this.h[i] = s;
  }
  /** The earliest end, or Infinity. */
  peekEnd(): number {
    return this.n > 0 ? this.r.te[this.h[0]!]! : Infinity;
  }
  pop(): number {
    const top = this.h[0]!;
    const last = this.h[--this.n]!;
    const te = this.r.te;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const c = l + 1 < this.n && te[this.h[l + 1]!]! < te[this.h[l]!]! ? l + 1 : l;
      if (te[this.h[c]!]! >= te[last]!) break;
      this.h[i] = this.h[c]!;
      i = c;
    }
    if (this.n > 0) this.h[i] = last;
    return top;
  }
}

/** Per thread: the first event at its latest start (cur), and at the start before (prev); slot -1: an instant. */
interface ThreadNesting {
  t: number;
  cur: number;
  curSeq: number;
  curTe: number;
  curId: number;
  prev: number;
  prevSeq: number;
  prevTe: number;
  prevId: number;
  fresh: boolean;
}

export interface TimelineOptions {
  keys: TimelineKeys;
  dirs: number;
  /** Directory index of each file (`TotalsChunk.fid`). */
  fileDir: Int32Array;
  processes: number;
  /** Where each window's figures go once final. */
  windowDone: WindowDone;
  /** Events without p_idx are children of the latest earlier-starting event on their thread that encloses them. */
  nest: boolean;
}

/**
 * The pass, fed chunk by chunk (`push`), then `finish()`. Chunks must continue one ordering:
 * process, then start ascending (then end descending, so that an enclosing event comes first).
 */
export class TimelineSweep {
  private readonly o: TimelineOptions;
  private readonly r = new Running();
  private readonly heap: EndHeap;
  private readonly busyKey: Unions;
  private readonly selfKey: Unions;
  private readonly busyCat: Unions;
  private readonly selfCat: Unions;
  private readonly busyDir: Unions;
  private readonly res: TimelineResult;
  /** Time per process by split state (I/O, compute, other: 3 bits). */
  private readonly splitTime: Float64Array;
  /** Running slots by id (heads of `sameId` lists), and running p_idx children by parent id. */
  private readonly ids = new IdTable();
  /** Per thread: the first event at the latest start, and the one before it (nesting). */
  private readonly threads = new Map<number, ThreadNesting>();
  private g = -1;
  private seq = 0;
  private prev = 0;
  // how many of each run now
  private nIo = 0;
  private nCompA = 0;
  private nOtherAll = 0;
  private nCompB = 0;
  private nWait = 0;
  private nOtherB = 0;
  /** Per level: the windows reached and not yet passed. */
  private readonly wq = [new WindowQueue(), new WindowQueue(), new WindowQueue()];

  constructor(opts: TimelineOptions) {
    this.o = opts;
    this.heap = new EndHeap(this.r);
    const nk = opts.keys.cat.length;
    this.busyKey = new Unions(nk);
    this.selfKey = new Unions(nk);
    this.busyCat = new Unions(opts.keys.cats);
    this.selfCat = new Unions(opts.keys.cats);
    this.busyDir = new Unions(opts.dirs);
    const p = opts.processes;
    this.res = {
      busyByKey: this.busyKey.len,
      selfByKey: this.selfKey.len,
      busyByCat: this.busyCat.len,
      selfByCat: this.selfCat.len,
      busyByDir: this.busyDir.len,
      io: new Float64Array(p),
      compute: new Float64Array(p),
      either: new Float64Array(p),
      all: new Float64Array(p),
    };
    this.splitTime = new Float64Array(p * 8);
  }

  push(c: TimelineChunk): void {
    const { keys } = this.o;
    for (let i = 0; i < c.rows; i++) {
      const g = c.g[i]!;
      if (g !== this.g) this.startProcess(g);
      const ts = c.ts[i]!;
      if (c.kind[i] === KIND_WINDOW) {
        this.wq[c.key[i]!]!.push(ts, c.te[i]!, c.id[i]!);
        continue;
      }
      if (ts !== ts) continue;
      // ends first: an interval [a, b) no longer runs at b
      while (this.heap.peekEnd() <= ts) this.end(this.heap.pop());
      this.advance(ts);
      const key = c.key[i]!;
      const kind = c.kind[i]!;
      const te = c.te[i]!;
      const bits = c.bits[i]!;
      // a read's bytes (one with a dur, not negative)
      if (kind === 1 && bits >> OP_SHIFT === 1 && (bits & BIT_DUR_NULL) === 0 && te >= ts) {
        const b = c.bytes[i]!;
        if (b !== 0) this.addBytes(ts, b);
      }
      const host = keys.host[key] === 1;
      const rawTid = c.tid[i]!;
      const tid = rawTid === rawTid ? rawTid : -1;
      if (this.o.nest && host && tid !== -1) {
        // the enclosing candidate: the first event at the latest start before this one, on this thread
        let th = this.threads.get(tid);
        if (th === undefined) {
          th = { t: -Infinity, cur: -1, curSeq: 0, curTe: 0, curId: -1, prev: -1, prevSeq: 0, prevTe: 0, prevId: -1, fresh: true };
          this.threads.set(tid, th);
        }
        if (ts > th.t) {
          th.prev = th.cur;
          th.prevSeq = th.curSeq;
          th.prevTe = th.curTe;
          th.prevId = th.curId;
          th.t = ts;
          th.fresh = true;
        }
        const id = c.id[i]!;
        const nested = c.parent[i] === -2 && th.prev >= 0 && th.prevTe >= te && th.prevId >= 0 && th.prevId !== id;
        const s = te > ts ? this.begin(c, i, key, kind, nested ? th.prev : -1, th.prevSeq) : -1;
        if (th.fresh) {
          // remembered even when it does not run (an instant): it still shadows earlier events
          th.fresh = false;
          th.cur = s;
          th.curSeq = s >= 0 ? this.r.seq[s]! : 0;
          th.curTe = te;
          th.curId = id;
        }
        continue;
      }
      if (te > ts) this.begin(c, i, key, kind, -1, 0);
    }
  }

  finish(): TimelineResult {
    this.endProcess();
    this.figures();
    return this.res;
  }

  private startProcess(g: number): void {
    this.endProcess();
    this.g = g;
    this.prev = -Infinity;
    this.threads.clear();
  }

  private endProcess(): void {
    if (this.g < 0) return;
    while (this.heap.n > 0) this.end(this.heap.pop());
    this.r.reset();
    this.ids.clear();
    for (let l = 0; l < 3; l++) this.passWindows(l, Infinity);
  }

  /** Level l's windows that end by t are past: their figures are final. */
  private passWindows(l: number, t: number): void {
    const q = this.wq[l]!;
    while (q.head < q.tail && q.we[q.head]! <= t) q.shift(l, this.o.windowDone);
  }

  /**
   * Account the time from the previous point to t with what ran in it: per process and window,
   * time by state (a few bits of what runs), turned into figures at the end.
   */
  private advance(t: number): void {
    const a = this.prev;
    if (!(t > a)) return;
    this.prev = t;
    if (a === -Infinity) return;
    const split = (this.nIo > 0 ? 1 : 0) | (this.nCompA > 0 ? 2 : 0) | (this.nOtherAll > 0 ? 4 : 0);
    if (split !== 0) this.splitTime[this.g * 8 + split]! += t - a;
    const state = (this.nIo > 0 ? 1 : 0) | (this.nCompB > 0 ? 2 : 0) | (this.nWait > 0 ? 4 : 0) | (this.nOtherB > 0 ? 8 : 0);
    const figs = STATE_FIGURES[state]!;
    for (let l = 0; l < 3; l++) {
      const { ws, we, fig, tail } = this.wq[l]!;
      if (state !== 0) {
        for (let j = this.wq[l]!.head; j < tail && ws[j]! < t; j++) {
          const len = Math.min(t, we[j]!) - Math.max(a, ws[j]!);
          if (len > 0) for (let f = 0; f < figs.length; f++) fig[j * FIGURES + figs[f]!]! += len;
        }
      }
      // time goes on from t: the windows that end by then are final
      this.passWindows(l, t);
    }
  }

  /** The figures from the time by state. */
  private figures(): void {
    const { io, compute, either, all } = this.res;
    for (let g = 0; g < io.length; g++) {
      for (let st = 1; st < 8; st++) {
        const len = this.splitTime[g * 8 + st]!;
        if (len === 0) continue;
        if (st & 1) io[g]! += len;
        if (st & 2) compute[g]! += len;
        if (st & 3) either[g]! += len;
        all[g]! += len;
      }
    }
  }

  /** A read's bytes, to the windows that hold its start. */
  private addBytes(t: number, b: number): void {
    for (let l = 0; l < 3; l++) {
      this.passWindows(l, t);
      const q = this.wq[l]!;
      if (q.head < q.tail && q.ws[q.head]! <= t) q.fig[q.head * FIGURES + 7]! += b;
    }
  }

  /** A running event more; returns its slot. */
  private begin(c: TimelineChunk, i: number, key: number, kind: number, nestParent: number, nestSeq: number): number {
    const r = this.r;
    const { keys } = this.o;
    const ts = c.ts[i]!;
    const s = r.alloc();
    const id = c.id[i]!;
    const parent = c.parent[i]!;
    const dev = (c.bits[i]! & BIT_DEV) !== 0;
    const host = keys.host[key] === 1;
    let flags = 0;
    if (host && !dev) flags |= F_HOST;
    if (dev) flags |= F_DEV;
    if (kind === 3 && !dev && keys.wait[key] === 1) flags |= F_WAIT;
    if (kind === 3 && !dev && keys.other[key] === 1) flags |= F_OTHER;
    r.te[s] = c.te[i]!;
    r.key[s] = key;
    r.kind[s] = kind;
    r.id[s] = id;
    r.parent[s] = parent;
    const fid = c.fid[i]!;
    r.dir[s] = fid >= 0 ? this.o.fileDir[fid]! : -1;
    r.seq[s] = ++this.seq;
    r.nestSlot[s] = nestParent;
    r.nestSeq[s] = nestSeq;
    this.heap.push(s);

    // what runs
    if (flags & F_HOST) {
      this.busyKey.inc(key, ts);
      this.busyCat.inc(keys.cat[key]!, ts);
    }
    if (kind === 1) {
      this.nIo++;
      if (r.dir[s]! >= 0) this.busyDir.inc(r.dir[s]!, ts);
    } else if (kind === 3) this.nOtherAll++;
    if (flags & F_WAIT) this.nWait++;

    // as a parent: the children already running
    const ids = this.ids;
    const e = ids.get(id);
    r.sameId[s] = ids.head[e]!;
    ids.head[e] = s;
    r.kidsA[s] = kind === 2 ? ids.kidsA[e]! : 0;
    r.kidsB[s] = host ? ids.kidsB[e]! : 0;
    r.flags[s] = flags;
    if (kind === 2 && r.kidsA[s] === 0) {
      r.flags[s]! |= F_SELF_A;
      this.nCompA++;
    }
    if (host && r.kidsB[s] === 0) this.selfOn(s, ts);

    // as a child
    if (parent >= 0 && parent !== id) {
      r.flags[s]! |= F_CHILD_A;
      const pe = ids.get(parent);
      ids.kidsA[pe]!++;
      if (host) {
        r.flags[s]! |= F_CHILD_B;
        ids.kidsB[pe]!++;
      }
      for (let p = ids.head[pe]!; p >= 0; p = r.sameId[p]!) {
        if (p === s) continue;
        this.kidA(p, 1);
        if (host && keys.host[r.key[p]!] === 1) this.kidB(p, 1, ts);
      }
    } else if (nestParent >= 0 && r.seq[nestParent] === nestSeq) this.kidB(nestParent, 1, ts);
    return s;
  }

  private end(s: number): void {
    const r = this.r;
    const { keys } = this.o;
    const t = r.te[s]!;
    this.advance(t);
    const key = r.key[s]!;
    const kind = r.kind[s]!;
    const flags = r.flags[s]!;
    const id = r.id[s]!;
    // out of the by-id list
    const ids = this.ids;
    const e = ids.find(id);
    let p = ids.head[e]!;
    if (p === s) ids.head[e] = r.sameId[s]!;
    else {
      while (p >= 0 && r.sameId[p] !== s) p = r.sameId[p]!;
      if (p >= 0) r.sameId[p] = r.sameId[s]!;
    }
    ids.release(e);
    if (flags & F_HOST) {
      this.busyKey.dec(key, t);
      this.busyCat.dec(keys.cat[key]!, t);
    }
    if (kind === 1) {
      this.nIo--;
      if (r.dir[s]! >= 0) this.busyDir.dec(r.dir[s]!, t);
    } else if (kind === 3) this.nOtherAll--;
    if (flags & F_WAIT) this.nWait--;
    if (flags & F_SELF_A) this.nCompA--;
    if (flags & F_SELF_B) this.selfOff(s, t);

    const parent = r.parent[s]!;
    if (flags & (F_CHILD_A | F_CHILD_B)) {
      const pe = ids.find(parent);
      ids.kidsA[pe]!--;
      if (flags & F_CHILD_B) ids.kidsB[pe]!--;
      for (let q = ids.head[pe]!; q >= 0; q = r.sameId[q]!) {
        this.kidA(q, -1);
        if (flags & F_CHILD_B && keys.host[r.key[q]!] === 1) this.kidB(q, -1, t);
      }
      ids.release(pe);
    } else {
      const n = r.nestSlot[s]!;
      if (n >= 0 && r.seq[n] === r.nestSeq[s] && this.isRunning(n)) this.kidB(n, -1, t);
    }
    r.seq[s] = -1;
    r.release(s);
  }

  private isRunning(s: number): boolean {
    return this.r.seq[s]! > 0;
  }

  /** A running child more (+1) or less (−1) of a compute event, for the split's self time. */
  private kidA(p: number, d: 1 | -1): void {
    const r = this.r;
    if (r.kind[p] !== 2) return;
    const before = r.kidsA[p]!;
    r.kidsA[p] = before + d;
    if (before === 0 && d === 1) {
      r.flags[p]! &= ~F_SELF_A;
      this.nCompA--;
    } else if (before === 1 && d === -1) {
      r.flags[p]! |= F_SELF_A;
      this.nCompA++;
    }
  }

  private kidB(p: number, d: 1 | -1, t: number): void {
    const r = this.r;
    const before = r.kidsB[p]!;
    r.kidsB[p] = before + d;
    if (before === 0 && d === 1) this.selfOff(p, t);
    else if (before === 1 && d === -1) this.selfOn(p, t);
  }

  private selfOn(s: number, t: number): void {
    const r = this.r;
    const flags = r.flags[s]!;
    r.flags[s] = flags | F_SELF_B;
    if (flags & F_HOST) {
      this.selfKey.inc(r.key[s]!, t);
      this.selfCat.inc(this.o.keys.cat[r.key[s]!]!, t);
    }
    if (r.kind[s] === 2) this.nCompB++;
    if (flags & F_OTHER) this.nOtherB++;
  }

  private selfOff(s: number, t: number): void {
    const r = this.r;
    const flags = r.flags[s]!;
    if (!(flags & F_SELF_B)) return;
    r.flags[s] = flags & ~F_SELF_B;
    if (flags & F_HOST) {
      this.selfKey.dec(r.key[s]!, t);
      this.selfCat.dec(this.o.keys.cat[r.key[s]!]!, t);
    }
    if (r.kind[s] === 2) this.nCompB--;
    if (flags & F_OTHER) this.nOtherB--;
  }
}
