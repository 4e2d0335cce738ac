import { cutName, jsonString, keyFragment, kindFragment } from '../format/line-format.js';

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
  /** JSON texts interned as they are (raw), apart from strings (whose fragment is quoted). */
  private readonly raws = new Map<string, number>();

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
  private lastRaw: string | undefined = undefined;
  private lastRawId = -1;

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

  /**
   * The kind of a name used once or a few times (`ProfilerStep#1234`): it takes a slot of a small
   * ring instead of a place in the name table for the session, so such names do not grow memory.
   * A slot is redefined once RING_KINDS newer ones were taken; -1 when the slot to redefine was
   * used since `gen` began (the caller flushes, so that no buffered event reads the new name).
   */
  transientKind(name: string, cat: string, gen: number): number {
    const known = this.kinds.get(cat)?.get(name);
    if (known !== undefined) return known;
    const key = `${cat}\0${name}`;
    let pos = this.ringPos.get(key);
    if (pos === undefined) {
      pos = this.ringNext;
      const slot = this.ringKind[pos];
      if (slot === undefined) {
        this.ringKind.push(this.kindFrag.length);
        this.kindFrag.push(kindFragment(cutName(name), cutName(cat), this.pid));
        this.kindName.push(name);
        this.kindCat.push(cat);
      } else {
        if (this.ringUsed[pos] === gen) return -1;
        this.ringPos.delete(this.ringKey[pos]!);
        this.kindFrag[slot] = kindFragment(cutName(name), cutName(cat), this.pid);
        this.kindName[slot] = name;
        this.kindCat[slot] = cat;
        this.redefined.push(slot);
      }
      this.ringKey[pos] = key;
      this.ringPos.set(key, pos);
      this.ringNext = (pos + 1) % RING_KINDS;
    }
    this.ringUsed[pos] = gen;
    return this.ringKind[pos]!;
  }

  /** Ring slots (kind indices) whose fragment changed since the writer was last sent them. */
  readonly redefined: number[] = [];
  private readonly ringKind: number[] = [];
  private readonly ringKey: string[] = [];
  private readonly ringUsed = new Float64Array(RING_KINDS).fill(-1);
  private readonly ringPos = new Map<string, number>();
  private ringNext = 0;

  /**
   * The last string value of each arg key and its index: an event shape's string args (dynamo's
   * `op`, `inputs`, `outputs`) alternate, so the one last value above misses on each of them,
   * while per key the value repeats kernel after kernel.
   */
  private readonly lastByKey: (string | undefined)[] = [];
  private lastIdByKey = new Int32Array(16);

  /** `str(v)` for the value of arg key `key`: the key's last value skips the Map. */
  strOf(key: number, v: string): number {
    if (v === this.lastByKey[key]) return this.lastIdByKey[key]!;
    const k = this.str(v);
    if (k >= 0) {
      if (key >= this.lastIdByKey.length) {
        const grown = new Int32Array(Math.max(key + 1, this.lastIdByKey.length * 2));
        grown.set(this.lastIdByKey);
        this.lastIdByKey = grown;
      }
      // Filled up to the key, never assigned past the end: a holey array would be a slow dictionary.
      while (this.lastByKey.length <= key) this.lastByKey.push(undefined);
      this.lastByKey[key] = v;
      this.lastIdByKey[key] = k;
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
    // before (a file read again after others) would first come after V8 had compiled the record
    // path, and deoptimize it.
    this.lastStr = v;
    this.lastStrId = k;
    return k;
  }

  /**
   * The index of a short JSON text (a `jsonArg`'s) among the same fragments as strings, written
   * as it is; -1 when it is not worth interning (or the table is full).
   */
  raw(text: string): number {
    // The same text as the last one (a layer's output shape, call after call) skips the Map.
    if (text === this.lastRaw) return this.lastRawId;
    let k = this.raws.get(text);
    if (k === undefined) {
      if (text.length > MAX_INTERNED_STRING || this.strFrag.length >= MAX_INTERNED_STRINGS) return -1;
      k = this.strFrag.length;
      this.strFrag.push(text);
      this.raws.set(text, k);
    }
    this.lastRaw = text;
    this.lastRawId = k;
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

/** Arg positions whose last key is remembered (see Interner.keyAt). */
const RECENT_KEYS = 16;

/** Keys the tracer writes in every event's args: a user arg of the same name is renamed `user_<key>`. */
const RESERVED_KEYS = new Set(['hhash', 'level', 'p_idx']);

/** Slots for transient names: as many distinct ones as can sit in a buffer before a flush is forced. */
const RING_KINDS = 256;

/** Only short strings are interned, and only so many: unique values must not grow memory forever. */
const MAX_INTERNED_STRING = 64;
const MAX_INTERNED_STRINGS = 1 << 16;

