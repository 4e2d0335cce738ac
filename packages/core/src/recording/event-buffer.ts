import { ARG_COLUMN_NAMES, TAG_FALSE, TAG_ISTR, TAG_NULL, TAG_NUM, TAG_RAW, TAG_STR, TAG_TRUE, allocColumns, assignColumns, type ColumnArrays, type EventColumns } from './columns.js';
import { safeJson } from '../format/safe-json.js';
import type { Interner } from './interner.js';
import { grown } from './typed-arrays.js';
import { JsonArg } from './json-arg.js';
import type { Args } from '../types.js';

/**
 * Complete events of one thread, held in typed-array columns until a flush formats them.
 * Recording into preallocated columns costs a few stores; building a JSON string per event would
 * cost several hundred ns on the traced call (`pnpm --filter @dftracer/core bench` shows both).
 */

/** The most args of an event shape (Tracer.shape): pushValues takes them as parameters. */
export const MAX_SHAPE_KEYS = 4;

/** The columns (columns.ts) are fields of the buffer itself: the record path stores into them directly. */
export interface EventBuffer extends ColumnArrays {}

export class EventBuffer implements EventColumns {
  readonly capacity: number;
  count = 0;
  argCap: number;
  argCount = 0;
  argObj: string[] = [];

  /** `reuse`: arrays of an earlier buffer of the same capacity, handed back by the writer thread. */
  constructor(capacity: number, reuse?: ColumnArrays) {
    this.capacity = capacity;
    const r = reuse !== undefined && reuse.kind.length === capacity ? reuse : undefined;
    this.argCap = r?.argKey.length ?? Math.max(16, capacity * 4);
    assignColumns(this, r ?? allocColumns(capacity, this.argCap));
  }

  get full(): boolean {
    return this.count >= this.capacity;
  }

  /** Records one complete event; the caller flushes when `full`. */
  push(kind: number, id: number, tid: number, ts: number, dur: number, level: number, pidx: number, args: Args | undefined, interner: Interner): void {
    this.times(ts, dur);
    this.pushArgs(kind, id, tid, level, pidx, args, interner);
  }

  /**
   * `push` in two calls, `times` then this, for hot paths: the times (doubles) are then stored by a
   * call small enough to be inlined into the caller. A double passed to a call that is not inlined
   * is boxed, 16 bytes each, and the garbage adds up on a hot path.
   */
  pushArgs(kind: number, id: number, tid: number, level: number, pidx: number, args: Args | undefined, interner: Interner): void {
    const i = this.head(kind, id, tid, level, pidx);
    if (args !== undefined) {
      const first = this.argCount;
      const firstObj = this.argObj.length;
      try {
        let pos = 0;
        for (const key in args) this.addArg(interner.keyAt(pos++, key), args[key], interner);
      } catch {
        this.argsUnreadable(first, firstObj, interner);
      }
    }
    this.argEnd[i] = this.argCount;
    this.count = i + 1;
  }

  /**
   * `pushArgs` for the args `{ ...args, ...extra }` without building that object: `args`' keys in
   * their order (with extra's value where extra has the key too), then extra's other keys.
   */
  pushMerged(kind: number, id: number, tid: number, level: number, pidx: number, args: Args | undefined, extra: Args, interner: Interner): void {
    const i = this.head(kind, id, tid, level, pidx);
    const first = this.argCount;
    const firstObj = this.argObj.length;
    try {
      let pos = 0;
      if (args !== undefined) for (const key in args) this.addArg(interner.keyAt(pos++, key), args[key], interner);
      const end = this.argCount;
      // Each object is read only inside its own for-in (V8's fast path there; looking a key of one
      // up in the other is a generic lookup, several times dearer): a key of extra that args had
      // is found among the args just written, by its interned id, and its value replaced there.
      for (const key in extra) {
        const k = interner.keyAt(pos++, key);
        let j = first;
        while (j < end && this.argKey[j] !== k) j++;
        if (j === end) this.addArg(k, extra[key], interner);
        else this.setValue(j, extra[key], interner);
      }
    } catch {
      this.argsUnreadable(first, firstObj, interner);
    }
    this.argEnd[i] = this.argCount;
    this.count = i + 1;
  }

  /** A getter or proxy that threw: the event keeps no user args but a note; the program sees nothing. */
  private argsUnreadable(first: number, firstObj: number, interner: Interner): void {
    this.argObj.length = firstObj;
    this.argCount = first;
    this.addArg(interner.key('args_error'), 'the args could not be read', interner);
  }

  /**
   * `pushArgs` for an event of a prepared shape (Tracer.shape): `n` ≤ MAX_SHAPE_KEYS args whose
   * keys are `keys[k0…]` and whose values are v0…v3 in that order; no args object to walk.
   */
  pushValues(kind: number, id: number, tid: number, level: number, pidx: number, keys: Int32Array, k0: number, n: number, v0: unknown, v1: unknown, v2: unknown, v3: unknown, interner: Interner): void {
    const i = this.head(kind, id, tid, level, pidx);
    if (this.argCount + MAX_SHAPE_KEYS > this.argCap) this.growArgs();
    const j = this.argCount;
    const key = this.argKey;
    const tag = this.argTag;
    const num = this.argNum;
    // Numbers and strings (what hot call sites pass) inline: measurably cheaper per event than
    // four addArg calls on traced reads.
    for (let a = 0; a < n; a++) {
      const v = a === 0 ? v0 : a === 1 ? v1 : a === 2 ? v2 : v3;
      key[j + a] = keys[k0 + a]!;
      if (typeof v === 'number') {
        tag[j + a] = TAG_NUM;
        num[j + a] = v;
      } else if (typeof v === 'string') this.putString(j + a, v, interner);
      else this.setValue(j + a, v, interner);
    }
    this.argCount = j + n;
    this.argEnd[i] = j + n;
    this.count = i + 1;
  }

  /** The time fields of the next event (then `pushArgs` or `pushValues` records the rest). */
  times(ts: number, dur: number): void {
    const i = this.count;
    this.ts[i] = ts;
    this.dur[i] = dur > 0 ? dur : 0; // negative or NaN (a plugin's bad end time): 0
  }

  /** The other fixed fields of the event being recorded; returns its index. */
  private head(kind: number, id: number, tid: number, level: number, pidx: number): number {
    const i = this.count;
    this.kind[i] = kind;
    this.id[i] = id;
    this.tid[i] = tid;
    this.level[i] = level;
    this.pidx[i] = pidx;
    return i;
  }

  /** Adds one arg to the event being recorded (from pushArgs and pushValues only). */
  addArg(key: number, v: unknown, interner: Interner): void {
    if (this.argCount === this.argCap) this.growArgs();
    const j = this.argCount++;
    this.argKey[j] = key;
    this.setValue(j, v, interner);
  }

  /** A string arg `j`: interned (an index) when short, else kept for the writer. */
  private putString(j: number, v: string, interner: Interner): void {
    const k = interner.strOf(this.argKey[j]!, v);
    if (k >= 0) {
      this.argTag[j] = TAG_ISTR;
      this.argNum[j] = k;
    } else {
      this.argTag[j] = TAG_STR;
      this.argNum[j] = this.argObj.push(v) - 1;
    }
  }

  /** The tag and value of arg `j`, any type. */
  private setValue(j: number, v: unknown, interner: Interner): void {
    switch (typeof v) {
      case 'number':
        this.argTag[j] = TAG_NUM;
        this.argNum[j] = v;
        return;
      case 'string':
        this.putString(j, v, interner);
        return;
      case 'boolean':
        this.argTag[j] = v ? TAG_TRUE : TAG_FALSE;
        return;
      case 'bigint':
        this.argTag[j] = TAG_RAW;
        this.argNum[j] = this.argObj.push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? v.toString() : `"${v.toString()}"`) - 1;
        return;
      case 'undefined':
        this.argTag[j] = TAG_NULL;
        return;
      default:
        if (v === null) {
          this.argTag[j] = TAG_NULL;
          return;
        }
        if (v instanceof JsonArg) {
          // Serialised once already; repeated (a tensor shape): interned like a short string.
          const k = interner.raw(v.text);
          if (k >= 0) {
            this.argTag[j] = TAG_ISTR;
            this.argNum[j] = k;
            return;
          }
        }
        // Objects are serialised now: formatting happens later, when the caller may have mutated them.
        this.argTag[j] = TAG_RAW;
        this.argNum[j] = this.argObj.push(v instanceof JsonArg ? v.text : safeJson(v)) - 1;
    }
  }

  private growArgs(): void {
    const cap = this.argCap * 2;
    const cols = this as Record<(typeof ARG_COLUMN_NAMES)[number], Int32Array | Uint8Array | Float64Array>;
    for (const name of ARG_COLUMN_NAMES) cols[name] = grown(cols[name], cap);
    this.argCap = cap;
  }

  reset(): void {
    // Drop string references so a flushed buffer keeps nothing of the program's alive.
    this.argObj.length = 0;
    this.count = 0;
    this.argCount = 0;
  }
}

