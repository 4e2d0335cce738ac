import { jsonString } from '../format/line-format.js';
import { safeJson } from '../format/safe-json.js';
import type { ArgValue, Args } from '../types.js';
import type { Interner } from './interner.js';

/**
 * Aggregation (DFTRACER_ENABLE_AGGREGATION, upstream's AGGREGATED records): the events of one
 * high-rate kind on one thread (and file, `fhash`) within one interval fold into one record at the
 * interval's start, `args.dft_cnt` calls, and per numeric field (`dur` first) `<f>_min`, `_max`,
 * `_sum`, or the plain field when `dft_cnt` is 1. Written as `"ph":"C"` records (README, Aggregation).
 */

/** Whether a kind folds: fs I/O, dynamo kernels (not the calls and layers they nest under), profiler kernels. */
export function foldsKind(name: string, cat: string): boolean {
  return cat === 'POSIX' || cat === 'PP' || (cat === 'dynamo' && name.startsWith('function.'));
}

/** The arg that splits a fold (upstream's MT_KEY args), written back since all its calls share it. */
const KEY_ARG = 'fhash';

/** The calls of one kind, thread and file in one interval. */
class Acc {
  cnt = 0;
  readonly names: string[] = ['dur'];
  readonly min: number[] = [Infinity];
  readonly max: number[] = [-Infinity];
  readonly sum: number[] = [0];
  /** Non-numeric args: their text while every call had the same, else null (left out). */
  strs: Map<string, string | null> | null = null;
  constructor(
    readonly kind: number,
    readonly tid: number,
    readonly ts: number,
    readonly key: string | undefined,
  ) {}

  num(name: string, v: number): void {
    let i = this.names.indexOf(name);
    if (i < 0) {
      i = this.names.push(name) - 1;
      this.min.push(v);
      this.max.push(v);
      this.sum.push(v);
      return;
    }
    if (v < this.min[i]!) this.min[i] = v;
    if (v > this.max[i]!) this.max[i] = v;
    this.sum[i]! += v;
  }

  str(name: string, text: string): void {
    const m = (this.strs ??= new Map());
    const had = m.get(name);
    if (had === undefined) m.set(name, this.cnt === 1 ? text : null);
    else if (had !== null && had !== text) m.set(name, null);
  }
}

/** One thread's folds; `take*` return false for a kind that does not fold (written as an event). */
export class Folder {
  private readonly decided: (string | undefined)[] = [];
  private readonly folds: boolean[] = [];
  /** interval → kind → tid → fhash ('' without one) → the open fold. */
  private readonly open = new Map<number, Map<number, Map<number, Map<string, Acc>>>>();
  private readonly order: Acc[] = [];
  /** The latest interval seen, and its folds (most events land there: one lookup fewer). */
  private interval = -Infinity;
  private current: Map<number, Map<number, Map<string, Acc>>> | null = null;

  constructor(
    private readonly intervalUs: number,
    private readonly interner: Interner,
    /** Writes finished folds' lines (tracer: with the next flush, each taking an id). */
    private readonly write: (acc: Acc, line: (id: number) => string) => void,
    private readonly pid: number,
    private readonly hhash: string,
  ) {}

  /** Whether events of `kind` fold (decided once per kind, again if a transient kind is renamed). */
  takes(kind: number): boolean {
    const name = this.interner.kindName[kind];
    if (this.decided[kind] !== name) {
      this.decided[kind] = name;
      this.folds[kind] = name !== undefined && foldsKind(name, this.interner.kindCat[kind]!);
    }
    return this.folds[kind]!;
  }

  /** Folds an event with an args object. */
  add(kind: number, tid: number, ts: number, dur: number, args: Args | undefined): void {
    const fh = args?.[KEY_ARG];
    const acc = this.acc(kind, tid, ts, dur, typeof fh === 'string' ? fh : undefined);
    if (args !== undefined) for (const k in args) if (k !== KEY_ARG) this.arg(acc, k, args[k]);
  }

  /** Folds an event of a prepared shape: `names` its arg names, v0… their values. */
  addValues(kind: number, tid: number, ts: number, dur: number, names: readonly string[], v0: ArgValue, v1: ArgValue, v2: ArgValue, v3: ArgValue): void {
    let fh: string | undefined;
    for (let i = 0; i < names.length; i++) {
      if (names[i] !== KEY_ARG) continue;
      const v = i === 0 ? v0 : i === 1 ? v1 : i === 2 ? v2 : v3;
      if (typeof v === 'string') fh = v;
    }
    const acc = this.acc(kind, tid, ts, dur, fh);
    for (let i = 0; i < names.length; i++) if (names[i] !== KEY_ARG) this.arg(acc, names[i]!, i === 0 ? v0 : i === 1 ? v1 : i === 2 ? v2 : v3);
  }

  private arg(acc: Acc, k: string, v: ArgValue): void {
    if (typeof v === 'number') {
      if (Number.isFinite(v)) acc.num(k, v);
    } else if (typeof v === 'bigint') acc.num(k, Number(v));
    else if (v !== undefined) acc.str(k, typeof v === 'string' ? jsonString(v) : safeJson(v));
  }

  private acc(kind: number, tid: number, ts: number, dur: number, key: string | undefined): Acc {
    const iv = Math.floor(ts / this.intervalUs);
    // A later interval began: the earlier ones' records are written (upstream's rule). An event
    // of an earlier interval (an async call, a kernel's device time arriving late) folds with
    // its own interval's calls, written with the next interval's turn or at finalize.
    if (iv > this.interval) {
      this.drain();
      this.interval = iv;
      this.current = null;
    }
    let byKind = iv === this.interval ? this.current : this.open.get(iv);
    if (byKind === undefined || byKind === null) {
      this.open.set(iv, (byKind = new Map()));
      if (iv === this.interval) this.current = byKind;
    }
    let byTid = byKind.get(kind);
    if (byTid === undefined) byKind.set(kind, (byTid = new Map()));
    let byKey = byTid.get(tid);
    if (byKey === undefined) byTid.set(tid, (byKey = new Map()));
    const k = key ?? '';
    let acc = byKey.get(k);
    if (acc === undefined) {
      acc = new Acc(kind, tid, iv * this.intervalUs, key);
      byKey.set(k, acc);
      this.order.push(acc);
    }
    acc.cnt++;
    acc.num('dur', dur);
    return acc;
  }

  /** Writes every open fold (an interval ended, or finalize). */
  drain(): void {
    if (this.order.length === 0) return;
    const order = this.order.splice(0);
    this.open.clear();
    this.current = null;
    for (const acc of order) this.write(acc, (id) => this.line(acc, id));
  }

  private line(a: Acc, id: number): string {
    const name = this.interner.kindName[a.kind]!;
    const cat = this.interner.kindCat[a.kind]!;
    let args = `"hhash":"${this.hhash}","dft_cnt":${a.cnt}`;
    if (a.key !== undefined) args += `,"${KEY_ARG}":${jsonString(a.key)}`;
    for (let i = 0; i < a.names.length; i++) {
      const f = jsonString(a.names[i]!).slice(1, -1);
      if (a.cnt === 1) args += `,"${f}":${num(a.sum[i]!)}`;
      else args += `,"${f}_min":${num(a.min[i]!)},"${f}_max":${num(a.max[i]!)},"${f}_sum":${num(a.sum[i]!)}`;
    }
    if (a.strs !== null) for (const [k, v] of a.strs) if (v !== null) args += `,${jsonString(k)}:${v}`;
    return `{"id":${id},"name":${jsonString(name)},"cat":${jsonString(cat)},"pid":${this.pid},"tid":${a.tid},"ts":${a.ts},"ph":"C","args":{${args}}}\n`;
  }
}

/** Sums of fractions print their shortest round-trip text; -0 as 0. */
function num(v: number): string {
  return v === 0 ? '0' : String(v);
}
