import { ARG_COLUMN_NAMES, allocColumns, assignColumns, type ColumnArrays, type EventColumns } from './columns.js';
import { ARGS_TAIL, BARE_TAIL, DUR_HEAD, FALSE_TEXT, ID_HEAD, NULL_TEXT, PIDX_HEAD, TRUE_TEXT, TS_HEAD, jsonString, keyFragment, kindFragment, numberText } from './line-format.js';
import type { TextSink } from './text-sink.js';
import { grown } from './typed-arrays.js';
import type { Args } from './types.js';

/**
 * Complete events of one thread, held in typed-array columns until a flush formats them.
 * Recording into preallocated columns costs a few stores; building a JSON string per event would
 * cost several hundred ns on the traced call (DESIGN.md §7).
 */

/** The longest event line written; longer ones have their string args cut (upstream's limit). */
export const MAX_EVENT_BYTES = 16 * 1024;

export const TAG_NUM = 0;
export const TAG_STR = 1; // needs JSON escaping
export const TAG_RAW = 2; // already JSON text (hashes, serialised objects, bigints, replacements)
export const TAG_TRUE = 3;
export const TAG_FALSE = 4;
export const TAG_NULL = 5;
export const TAG_ISTR = 6; // an interned string: argNum holds its index in Interner.strFrag

/** (name, cat) pairs and arg keys interned to small ints with their JSON fragments precomputed. */
export class Interner {
  /** `,"name":"read","cat":"POSIX","pid":123,"tid":` per kind. */
  readonly kindFrag: string[] = [];
  readonly kindName: string[] = [];
  readonly kindCat: string[] = [];
  private readonly kinds = new Map<string, Map<string, number>>();
  /** `,"key":` per key. */
  readonly keyFrag: string[] = [];
  private readonly keys = new Map<string, number>();
  /**
   * JSON text of short string values seen in args (file hashes, phases, modes): they repeat, so
   * each is escaped once and a batch carries an index instead of the string.
   */
  readonly strFrag: string[] = [];
  private readonly strs = new Map<string, number>();

  constructor(private readonly pid: number) {}

  // The last kind and the keys of the last args object, by position: events of one call site
  // repeat them, and comparing a string to the same string is cheaper than a Map lookup.
  private lastName = '';
  private lastCat = '';
  private lastKind = -1;
  private readonly recentKeys: string[] = new Array<string>(RECENT_KEYS).fill('');
  private readonly recentKeyIds = new Int32Array(RECENT_KEYS);
  private lastStr: string | undefined = undefined;
  private lastStrId = -1;

  kind(name: string, cat: string): number {
    if (name === this.lastName && cat === this.lastCat && this.lastKind >= 0) return this.lastKind;
    const k = this.lookupKind(name, cat);
    this.lastName = name;
    this.lastCat = cat;
    this.lastKind = k;
    return k;
  }

  private lookupKind(name: string, cat: string): number {
    let byName = this.kinds.get(cat);
    if (byName === undefined) this.kinds.set(cat, (byName = new Map()));
    let k = byName.get(name);
    if (k === undefined) {
      k = this.kindFrag.length;
      this.kindFrag.push(kindFragment(cutName(name), cutName(cat), this.pid));
      this.kindName.push(name);
      this.kindCat.push(cat);
      byName.set(name, k);
    }
    return k;
  }

  /** The index of a short string value, or -1 when it is not worth interning (or the table is full). */
  str(v: string): number {
    // The same value as the last one (a file's hash, read after read) skips the Map.
    if (v === this.lastStr) return this.lastStrId;
    let k = this.strs.get(v);
    if (k === undefined) {
      if (v.length > MAX_INTERNED_STRING || this.strFrag.length >= MAX_INTERNED_STRINGS) return -1;
      k = this.strFrag.length;
      this.strFrag.push(jsonString(v));
      this.strs.set(v, k);
    }
    // One path on for values seen before and new ones: with a path of its own, a value seen
    // before (a file read again after others) first came after V8 had compiled the record path,
    // which was thrown away there and compiled again (--trace-deopt, POSIX flood).
    this.lastStr = v;
    this.lastStrId = k;
    return k;
  }

  /** The index of the key at position `pos` of an args object. */
  keyAt(pos: number, key: string): number {
    if (pos >= RECENT_KEYS) return this.key(key);
    if (this.recentKeys[pos] === key) return this.recentKeyIds[pos]!;
    const k = this.key(key);
    this.recentKeys[pos] = key;
    this.recentKeyIds[pos] = k;
    return k;
  }

  key(key: string): number {
    let k = this.keys.get(key);
    if (k === undefined) {
      k = this.keyFrag.length;
      this.keyFrag.push(keyFragment(RESERVED_KEYS.has(key) ? `user_${key}` : cutName(key)));
      this.keys.set(key, k);
    }
    return k;
  }
}

/** The most args of an event shape (Tracer.shape): pushValues takes them as parameters. */
export const MAX_SHAPE_KEYS = 4;

/** Arg positions whose last key is remembered (see Interner.keyAt). */
const RECENT_KEYS = 16;

/** Keys the tracer writes in every event's args: a user arg of the same name is renamed `user_<key>`. */
const RESERVED_KEYS = new Set(['hhash', 'level', 'p_idx']);

/** Only short strings are interned, and only so many: unique values must not grow memory forever. */
const MAX_INTERNED_STRING = 64;
const MAX_INTERNED_STRINGS = 1 << 16;

/** Names and categories are labels: keep them short enough that an event always fits. */
const MAX_NAME = 1024;
function cutName(s: string): string {
  return s.length > MAX_NAME ? cut(s, MAX_NAME) : s;
}

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
   * is boxed, 16 bytes each: on a traced read that was a scavenge every ~30 k events.
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
        // A getter or proxy that throws: the event keeps no user args but a note; the program sees nothing.
        this.argObj.length = firstObj;
        this.argCount = first;
        this.addArg(interner.key('args_error'), 'the args could not be read', interner);
      }
    }
    this.argEnd[i] = this.argCount;
    this.count = i + 1;
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
    // Numbers and strings (what hot call sites pass) inline: on traced 4 KiB reads 18–64 ns less
    // per event than four addArg calls (both versions switched burst by burst in one process).
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
    const k = interner.str(v);
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
        // Objects are serialised now: formatting happens later, when the caller may have mutated them.
        this.argTag[j] = TAG_RAW;
        this.argNum[j] = this.argObj.push(safeJson(v)) - 1;
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

/**
 * JSON for an object arg (or metadata value); never throws. Replacements, as for top-level args:
 * NaN/±Infinity → "NaN"/"Infinity"/"-Infinity", bigint → number if safe else decimal string,
 * function → "[Function: name]", symbol → "Symbol(desc)", a reference to an ancestor →
 * "[Circular]" (a shared, non-cyclic reference is written in full). If serialisation throws
 * anywhere (a throwing toJSON or getter, a proxy, extreme depth) the value is "[unserializable]".
 */
export function safeJson(v: unknown): string {
  // The objects on the path from the root to the value being serialised.
  const path: object[] = [];
  try {
    const s = JSON.stringify(v, function (this: unknown, _k: string, x: unknown): unknown {
      // `this` holds x: the ancestors are the path up to it (the root's holder is not on the path).
      path.length = path.lastIndexOf(this as object) + 1;
      switch (typeof x) {
        case 'bigint':
          return x >= MIN_SAFE && x <= MAX_SAFE ? Number(x) : x.toString();
        case 'number':
          return Number.isFinite(x) ? x : String(x);
        case 'function':
          return `[Function: ${(x as { name?: unknown }).name || '(anonymous)'}]`;
        case 'symbol':
          return x.toString();
        case 'object':
          if (x === null) return x;
          if (path.includes(x)) return '[Circular]';
          path.push(x);
          return x;
        default:
          return x;
      }
    });
    return s === undefined ? 'null' : s;
  } catch {
    return '"[unserializable]"';
  }
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A label from anything a JS caller may pass where a string is expected. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return typeof v === 'symbol' ? v.toString() : String(v);
  } catch {
    return '[unserializable]';
  }
}

/**
 * One metadata record line (`ph: "M"`) with its id: `name` and `value` JSON-escaped, and, like events, cut
 * (value first, then name) with the …[truncated N chars] marker when the line would exceed 16 KiB.
 */
export function metadataLine(kind: string, id: number, pid: number, tid: number, hhash: string, name: unknown, value: unknown, onCut?: (count: number) => void): string {
  const head = `{"id":${id},"name":${jsonString(kind)},"cat":"dftracer","pid":${pid},"tid":${tid},"ph":"M","args":{"hhash":"${hhash}","name":`;
  const n = asText(name);
  const v = asText(value);
  let line = `${head}${jsonString(n)},"value":${jsonString(v)}}}\n`;
  if (line.length <= MAX_EVENT_BYTES / 3 || Buffer.byteLength(line) <= MAX_EVENT_BYTES) return line;
  onCut?.(1);
  for (const [nameMax, valueMax] of [[Infinity, 4096], [Infinity, 1024], [4096, 256], [1024, 64], [256, 16]] as const) {
    line = `${head}${jsonString(n.length > nameMax ? cut(n, nameMax) : n)},"value":${jsonString(v.length > valueMax ? cut(v, valueMax) : v)}}}\n`;
    if (Buffer.byteLength(line) <= MAX_EVENT_BYTES) return line;
  }
  return line;
}

/** Per-file constants used while formatting. */
export interface FormatContext {
  /** Interner.kindFrag and keyFrag, or the writer thread's copies of them. */
  readonly kindFrag: readonly string[];
  readonly keyFrag: readonly string[];
  readonly strFrag: readonly string[];
  readonly incMetadata: boolean;
  /** `,"ph":"X","args":{"hhash":"<host hash>","level":` */
  readonly argsHead: string;
  /** Called once per flush that had to cut an oversize event. */
  readonly onTruncated: (count: number) => void;
}

/** Writes every event of the buffer as DFTracer E2 lines (field order fixed by the format), as UTF-8. */
export function formatEvents(buf: EventColumns, ctx: FormatContext, out: TextSink): void {
  const cuts = { count: 0 };
  let argStart = 0;
  for (let i = 0; i < buf.count; i++) {
    const argEnd = buf.argEnd[i]!;
    out.write(formatLine(buf, ctx, i, argStart, argEnd, cuts));
    argStart = argEnd;
  }
  if (cuts.count > 0) ctx.onTruncated(cuts.count);
}

/** The text of event `i` (its args are [from, to)); `cuts.count` counts lines whose string args were cut. */
export function formatLine(buf: EventColumns, ctx: FormatContext, i: number, from: number, to: number, cuts: { count: number }): string {
  // ts is ~1.7e15: printing its high and low halves separately avoids slow double-to-string.
  // A plugin may hand over any time (small, fractional, NaN): that goes the general way.
  const ts = buf.ts[i]!;
  let tsText: string;
  if (ts >= 1e6 && ts <= Number.MAX_SAFE_INTEGER && ts === Math.floor(ts)) {
    const hi = Math.floor(ts / 1e6);
    if (hi !== tsHi) {
      tsHi = hi;
      tsHiText = String(hi);
    }
    tsText = tsHiText + String(ts - hi * 1e6 + 1e6).slice(1);
  } else tsText = numberText(ts);
  let line = ID_HEAD + buf.id[i]! + ctx.kindFrag[buf.kind[i]!]! + buf.tid[i]! + TS_HEAD + tsText + DUR_HEAD + buf.dur[i]!;
  if (!ctx.incMetadata) return line + BARE_TAIL;
  line += ctx.argsHead + buf.level[i]! + PIDX_HEAD + buf.pidx[i]!;
  if (to > from) line += formatArgs(buf, ctx.keyFrag, ctx.strFrag, from, to, Infinity);
  line += ARGS_TAIL;
  if (line.length > MAX_EVENT_BYTES / 3 && Buffer.byteLength(line) > MAX_EVENT_BYTES) {
    line = truncateLine(buf, ctx, i, from, to, line);
    cuts.count++;
  }
  return line;
}

// The text of the last ts's high half: consecutive events share it.
let tsHi = -1;
let tsHiText = '';

function formatArgs(buf: EventColumns, keyFrag: readonly string[], strFrag: readonly string[], from: number, to: number, maxString: number): string {
  let s = '';
  for (let j = from; j < to; j++) {
    s += keyFrag[buf.argKey[j]!]!;
    switch (buf.argTag[j]) {
      case TAG_NUM:
        s += numberText(buf.argNum[j]!);
        break;
      case TAG_STR: {
        const v = buf.argObj[buf.argNum[j]!]!;
        s += jsonString(v.length > maxString ? cut(v, maxString) : v);
        break;
      }
      case TAG_RAW: {
        const v = buf.argObj[buf.argNum[j]!]!;
        s += v.length > maxString ? jsonString(cut(v, maxString)) : v;
        break;
      }
      case TAG_ISTR:
        s += strFrag[buf.argNum[j]!]!; // at most 64 chars: never cut
        break;
      case TAG_TRUE:
        s += TRUE_TEXT;
        break;
      case TAG_FALSE:
        s += FALSE_TEXT;
        break;
      default:
        s += NULL_TEXT;
    }
  }
  return s;
}

function cut(s: string, max: number): string {
  // Never split a surrogate pair: a lone half would be escaped, not lost, but reads badly.
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…[truncated ${s.length - end} chars]`;
}

/** Cuts the string args of an oversize event until its line fits in MAX_EVENT_BYTES. */
function truncateLine(buf: EventColumns, ctx: FormatContext, i: number, from: number, to: number, line: string): string {
  const head = line.slice(0, line.indexOf(ctx.argsHead));
  const core = head + ctx.argsHead + buf.level[i]! + PIDX_HEAD + buf.pidx[i]!;
  for (let max = 4096; max >= 16; max >>= 2) {
    const l = core + formatArgs(buf, ctx.keyFrag, ctx.strFrag, from, to, max) + ARGS_TAIL;
    if (Buffer.byteLength(l) <= MAX_EVENT_BYTES) return l;
  }
  return core + ',"truncated":true}}\n';
}
