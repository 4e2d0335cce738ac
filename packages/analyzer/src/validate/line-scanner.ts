/**
 * The validator's line scanner: checks the E2 layout of each line byte by byte (no `JSON.parse`
 * unless a line fails the fast path) and extracts what the semantic checks need into compact
 * records. It works on chunks of whole lines and keeps no cross-chunk state except small caches,
 * so chunks of one file can be scanned in parallel (worker threads) and their results consumed in
 * order by the semantic checker (`validate.ts`).
 *
 * Invariant relied on throughout: a chunk ends with `\n`, and no literal contains byte 10, so a
 * scan that runs to the end of a line stops there.
 */
import { Byte, isHash16, lit, scanObjectBody, scanStringBody, scanValue } from './scan.js';
import { checkEnd22, fromLayout22, isLayout22 } from '../read/layout22.js';
import { grown } from '../typed-arrays.js';

export type ProblemKind =
  | 'not-trace'
  | 'gzip'
  | 'json'
  | 'layout'
  | 'value'
  | 'duplicate-id'
  | 'parent'
  | 'nesting'
  | 'level'
  | 'hash'
  | 'lifecycle'
  | 'num-events'
  | 'overlap'
  /** a warning, under `validate --strict` */
  | 'strict';

export interface ProblemExample {
  line: number;
  message: string;
}

export interface ProblemGroup {
  kind: ProblemKind;
  count: number;
  /** The first few occurrences. */
  examples: ProblemExample[];
}

/** Hash namespaces: which metadata record defines a referenced hash (0 FH, 1 HH, 2 SH). */
export const NS_FH = 0;
export const NS_HH = 1;
export const NS_SH = 2;
export const NS_NAMES = ['FH', 'HH', 'SH'];

/** Numbers per record in `ChunkResult.records`. */
export const RECORD_SIZE = 12;
/** Record field offsets. */
export const FIELD = {
  LINE: 0,
  ID: 1,
  PID: 2,
  TID: 3,
  TS: 4,
  DUR: 5,
  /** -1: absent */
  LEVEL: 6,
  /** -2: absent */
  P_IDX: 7,
  /** end.num_events, -1: absent */
  NUM_EVENTS: 8,
  /** 1: start, 2: end, 3: a metadata record (ID -1 when it has none; no times), 4, 5: see below */
  FLAGS: 9,
  /** 1: an event on a GPU device track (`args.device_track`), else 0 */
  DEVICE_TRACK: 10,
  /** `args.launch_id` of a device-track event, -1: absent */
  LAUNCH_ID: 11,
} as const;

/** A metadata record in `ChunkResult.records` (FIELD.FLAGS); FIELD.NUM_EVENTS is 1 for a `process_name` record. */
export const FLAG_META = 3;
/** A `[` line after line 1: another trace appended to this one may start here (LINE only). */
export const FLAG_OPEN = 4;
/** A `]` line (or a `]` that the next run's first record follows on the same line): LINE only. */
export const FLAG_CLOSE = 5;

/**
 * Layouts upstream DFTracer wrote that are accepted but are not the layout dftracer.js writes:
 * warnings, errors under `validate --strict`.
 */
export type QuirkKind = 'string-numbers' | 'integer-hashes' | 'indented' | 'close-no-newline' | 'joined-close' | 'blank-line';

export const QUIRK_TEXT: Record<QuirkKind, string> = {
  'string-numbers': 'numbers written as strings (DLIO profiler / DFTracer 2023 layout), read as numbers',
  'integer-hashes': 'hashes written as integers (DFTracer 2024 layout)',
  indented: 'lines indented with spaces',
  'close-no-newline': 'the closing "]" has no final newline (DFTracer 2024 layout)',
  'joined-close': 'a run\'s closing "]" and the next run\'s first record share a line (DFTracer 2024 appending to an existing file)',
  'blank-line': 'empty lines (DFTracer\'s dftracer_merge writes one before the closing "]")',
};

/** What scanning one chunk of whole lines found; line numbers are relative to the chunk (1-based). */
export interface ChunkResult {
  lines: number;
  /** `recordCount` records, `RECORD_SIZE` numbers each. */
  records: Float64Array;
  recordCount: number;
  metadata: number;
  /** Newly defined hashes: `[ns, hash]`. */
  defs: Array<[number, string]>;
  /** Hash references new to this scanner: `[ns, hash, line]`. */
  refs: Array<[number, string, number]>;
  problems: ProblemGroup[];
  /** The chunk started the file and line 1 is not a trace header: stop reading. */
  notTrace: boolean;
  /** Upstream layouts met: `[kind, count, first relative line]`. */
  quirks: Array<[QuirkKind, number, number]>;
}

const HASH_CACHE_BITS = 8;
const HASH_CACHE_SLOTS = 1 << HASH_CACHE_BITS;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A literal, pre-split into little-endian 32-bit words for DataView comparison. */
interface Literal {
  len: number;
  words: number[];
  tail: number[];
}
function literal(s: string): Literal {
  const b = lit(s);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const words: number[] = [];
  let i = 0;
  for (; i + 4 <= b.length; i += 4) words.push(dv.getUint32(i, true));
  return { len: b.length, words, tail: Array.from(b.subarray(i)) };
}

const L_ID = literal('{"id":');
const L_NAME_FIRST = literal('{"name":"');
const L_NAME = literal(',"name":"');
const L_CAT = literal(',"cat":"');
const L_PID = literal(',"pid":');
const L_TID = literal(',"tid":');
const L_TS = literal(',"ts":');
const L_DUR = literal(',"dur":');
const L_PH_X = literal(',"ph":"X"');
const L_PH_M = literal(',"ph":"M"');
const L_PH_C = literal(',"ph":"C"');
const L_ARGS = literal(',"args":{');
const L_ARGS_HHASH = literal(',"args":{"hhash":"');
const L_LEVEL = literal(',"level":');
const L_PIDX = literal(',"p_idx":');
const L_FHASH = literal('"fhash":"');

const B_START = lit('start');
const B_END = lit('end');
const B_DFTRACER = lit('dftracer');
const KEY_HHASH = lit('hhash');
const KEY_FHASH = lit('fhash');
const KEY_LEVEL = lit('level');
const KEY_PIDX = lit('p_idx');
const KEY_NUM = lit('num_events');
const KEY_DEVICE_TRACK = lit('device_track');
const KEY_LAUNCH_ID = lit('launch_id');
const B_PROCESS_NAME = lit('process_name');
const KEY_NAME = lit('name');
const KEY_VALUE = lit('value');
const KEY_CWD = lit('cwd');
const SUFFIX_HASH = lit('_hash');

const X_ORDER = ['id', 'name', 'cat', 'pid', 'tid', 'ts', 'dur', 'ph', 'args'];
const M_ORDER = ['name', 'cat', 'pid', 'tid', 'ph', 'args'];
const C_ORDER = ['name', 'cat', 'pid', 'tid', 'ts', 'ph', 'args'];
const HASH_KEYS = new Set(['hhash', 'fhash']);

function eqBytes(buf: Uint8Array, s: number, e: number, l: Uint8Array): boolean {
  if (e - s !== l.length) return false;
  for (let i = 0; i < l.length; i++) if (buf[s + i] !== l[i]) return false;
  return true;
}

export class LineScanner {
  private readonly maxExamples: number;
  private groups = new Map<ProblemKind, ProblemGroup>();
  private records = new Float64Array(RECORD_SIZE * 4096);
  private recordCount = 0;
  private metadata = 0;
  private defs: Array<[number, string]> = [];
  private refs: Array<[number, string, number]> = [];
  private notTrace = false;
  private quirks = new Map<QuirkKind, [QuirkKind, number, number]>();
  private readonly quirkLine = new Map<QuirkKind, number>();
  private lineNo = 0;

  // the buffer being scanned
  private buf: Uint8Array = new Uint8Array(0);
  private dv: DataView = new DataView(new ArrayBuffer(0));
  private len = 0;

  // registers filled by the fast path for the current line
  private value = 0;
  private id = 0;
  private pid = 0;
  private tid = 0;
  private ts = 0;
  private dur = 0;
  private level = -1;
  private pIdx = -2;
  private numEvents = -1;
  private device = 0;
  private launchId = -1;
  private nameS = 0;
  private nameE = 0;
  private catS = 0;
  private catE = 0;

  // per file: hashes already reported, and the last reference of each kind
  private defined: Array<Set<string>> = [new Set(), new Set(), new Set()];
  private referenced: Array<Set<string>> = [new Set(), new Set(), new Set()];
  /** Recently seen hashes, 4 words each, per namespace (never matches 0-words: not hex). */
  private readonly hashCache = new Uint32Array(3 * HASH_CACHE_SLOTS * 4);

  constructor(maxExamples = 3) {
    this.maxExamples = maxExamples;
  }

  /** Forget per-file state (done by `scanChunk(…, first = true)`). */
  resetFile(): void {
    this.defined = [new Set(), new Set(), new Set()];
    this.referenced = [new Set(), new Set(), new Set()];
    this.hashCache.fill(0);
  }

  private setBuf(buf: Uint8Array): void {
    this.buf = buf;
    this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.len = buf.length;
  }

  /**
   * Scan a chunk of whole lines (`buf` ends with `\n`). `first`: the chunk starts a file (line 1
   * must be `[`).
   */
  scanChunk(buf: Uint8Array, first: boolean, opts: { copyRecords?: boolean } = {}): ChunkResult {
    if (first) this.resetFile();
    this.groups = new Map();
    this.recordCount = 0;
    this.metadata = 0;
    this.defs = [];
    this.refs = [];
    this.notTrace = false;
    this.quirks = new Map();
    this.setBuf(buf);
    const len = buf.length;
    let lineNo = 0;
    let pos = 0;
    while (pos < len) {
      lineNo++;
      this.lineNo = lineNo;
      let next = -1;
      if (lineNo === 1 && first) {
        const nl = this.lineEnd(pos);
        this.header(pos, nl);
        if (this.notTrace) break;
        next = nl + 1;
      } else {
        if (buf[pos] === Byte.LBRACE) next = buf[pos + 2] === 105 /* {"i */ ? this.fastComplete(pos, lineNo) : this.fastMeta(pos, lineNo);
        if (next < 0) {
          const nl = this.lineEnd(pos);
          if (this.isLone(pos, nl, Byte.RBRACKET)) this.marker(FLAG_CLOSE, lineNo);
          else if (this.isLone(pos, nl, Byte.LBRACKET)) this.marker(FLAG_OPEN, lineNo);
          else if (buf[pos] === Byte.RBRACKET && this.joinedClose(pos, nl)) {
            // `]` then the next run's first record: DFTracer 2024 appended a run to a finished file
            this.marker(FLAG_CLOSE, lineNo);
            this.quirk('joined-close', lineNo);
            let s = pos + 1;
            while (buf[s] === Byte.SPACE || buf[s] === Byte.TAB) s++;
            const q = buf[s + 2] === 105 ? this.fastComplete(s, lineNo) : this.fastMeta(s, lineNo);
            if (q < 0) this.slowLine(s, nl, lineNo);
          } else this.slowLine(pos, nl, lineNo);
          next = nl + 1;
        }
      }
      pos = next;
    }
    return {
      lines: lineNo,
      // a view when the caller reads the records before the next scan (same thread), else a copy
      records: opts.copyRecords === false ? this.records.subarray(0, this.recordCount * RECORD_SIZE) : this.records.slice(0, this.recordCount * RECORD_SIZE),
      recordCount: this.recordCount,
      metadata: this.metadata,
      defs: this.defs,
      refs: this.refs,
      problems: [...this.groups.values()],
      notTrace: this.notTrace,
      quirks: [...this.quirks.values()],
    };
  }

  /** Whether the line [s, e) is `]`, spaces, then an object. */
  private joinedClose(s: number, e: number): boolean {
    const b = this.buf;
    s++;
    while (s < e && (b[s] === Byte.SPACE || b[s] === Byte.TAB)) s++;
    return s < e && b[s] === Byte.LBRACE;
  }

  /** Whether the line [s, e) is the single character `c`, maybe with spaces around it. */
  private isLone(s: number, e: number, c: number): boolean {
    const b = this.buf;
    while (s < e && (b[s] === Byte.SPACE || b[s] === Byte.TAB)) s++;
    while (e > s && (b[e - 1] === Byte.SPACE || b[e - 1] === Byte.TAB || b[e - 1] === Byte.CR)) e--;
    return e - s === 1 && b[s] === c;
  }

  /** Note an upstream layout on the current line. */
  quirk(kind: QuirkKind, line = this.lineNo): void {
    const q = this.quirks.get(kind);
    if (!q) this.quirks.set(kind, [kind, 1, line]);
    else if (this.quirkLine.get(kind) !== line) q[1]++; // lines, not values
    this.quirkLine.set(kind, line);
  }

  private lineEnd(pos: number): number {
    const nl = this.buf.indexOf(10, pos);
    return nl < 0 ? this.len : nl;
  }

  private problem(kind: ProblemKind, line: number, message: string | (() => string)): void {
    let g = this.groups.get(kind);
    if (!g) this.groups.set(kind, (g = { kind, count: 0, examples: [] }));
    g.count++;
    if (g.examples.length < this.maxExamples) g.examples.push({ line, message: typeof message === 'string' ? message : message() });
  }

  private text(s: number, e: number): string {
    return decoder.decode(this.buf.subarray(s, e));
  }

  private latin1(s: number, e: number): string {
    let out = '';
    const b = this.buf;
    for (let i = s; i < e; i++) out += String.fromCharCode(b[i]!);
    return out;
  }

  private header(start: number, end: number): void {
    if (this.isLone(start, end, Byte.LBRACKET)) return;
    let obj: unknown;
    try {
      obj = JSON.parse(this.text(start, end));
    } catch {
      /* not JSON */
    }
    if (obj && typeof obj === 'object' && !Array.isArray(obj) && isLayout22(obj as Record<string, unknown>)) {
      // DFTracer 2.2 writes no `[` line: its first record is checked as any other
      this.slowLine(start, end, 1);
      return;
    }
    if (obj && typeof obj === 'object' && !Array.isArray(obj) && ('ph' in obj || 'name' in obj)) {
      // Trace events without the `[` line (pure NDJSON): report, then check the rest.
      this.problem('layout', 1, 'line 1 must be "[" (found an event: a trace without the E2 "[" line?)');
      this.slowLine(start, end, 1);
      return;
    }
    const printable = this.text(start, Math.min(end, start + 200))
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 40);
    this.problem('not-trace', 1, `not a DFTracer trace: line 1 is not "[" (starts with ${JSON.stringify(printable)})`);
    this.notTrace = true;
  }

  // ---- fast paths: return the position after the line's `\n`, or -1 -----------------------------

  /** Match a literal at `p` (4 bytes at a time). */
  private match(p: number, l: Literal): number {
    if (p < 0 || p + l.len > this.len) return -1;
    const dv = this.dv;
    const w = l.words;
    let q = p;
    for (let i = 0; i < w.length; i++, q += 4) if (dv.getUint32(q, true) !== w[i]) return -1;
    const t = l.tail;
    const buf = this.buf;
    for (let i = 0; i < t.length; i++, q++) if (buf[q] !== t[i]) return -1;
    return q;
  }

  /** A non-negative JSON integer into `this.value`. */
  private uint(p: number): number {
    if (p < 0) return -1;
    const buf = this.buf;
    let c = buf[p]!;
    if (c < 48 || c > 57) return -1;
    if (c === 48) {
      const d = buf[p + 1]!;
      if ((d >= 48 && d <= 57) || d === Byte.DOT || d === 101 || d === 69) return -1;
      this.value = 0;
      return p + 1;
    }
    let v = 0;
    // four digits at a time while they last (timestamps have 16)
    const dv = this.dv;
    while (p + 4 <= this.len) {
      const w = dv.getUint32(p, true);
      if ((w & 0xf0f0f0f0) !== 0x30303030 || ((w + 0x06060606) & 0xf0f0f0f0) !== 0x30303030) break;
      v = v * 10000 + (w & 0xf) * 1000 + ((w >>> 8) & 0xf) * 100 + ((w >>> 16) & 0xf) * 10 + ((w >>> 24) & 0xf);
      p += 4;
    }
    c = buf[p]!;
    while (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      c = buf[++p]!;
    }
    if (c === Byte.DOT || c === 101 || c === 69) return -1; // not an integer
    this.value = v;
    return p;
  }

  /** A JSON integer, possibly negative, into `this.value`. */
  private int(p: number): number {
    if (p >= 0 && this.buf[p] === Byte.MINUS) {
      const q = this.uint(p + 1);
      this.value = -this.value;
      return q;
    }
    return this.uint(p);
  }

  /**
   * The fields every line shares, from the name's first character: `…","cat":"…","pid":N,"tid":N`.
   * Returns the position after the tid.
   */
  private nameToTid(p: number): number {
    if (p < 0) return -1;
    const buf = this.buf;
    this.nameS = p;
    p = scanStringBody(buf, p);
    if (p < 0) return -1;
    this.nameE = p;
    p = this.match(p + 1, L_CAT);
    if (p < 0) return -1;
    this.catS = p;
    p = scanStringBody(buf, p);
    if (p < 0) return -1;
    this.catE = p;
    if ((p = this.uint(this.match(p + 1, L_PID))) < 0) return -1;
    this.pid = this.value;
    if ((p = this.uint(this.match(p, L_TID))) < 0) return -1;
    this.tid = this.value;
    return p;
  }

  /** `{"id":…,"name":"…","cat":"…","pid":…,"tid":…,"ts":…,"dur":…,"ph":"X"[,"args":{…}]}` */
  private fastComplete(start: number, lineNo: number): number {
    const buf = this.buf;
    let p = this.uint(this.match(start, L_ID));
    if (p < 0) return -1;
    this.id = this.value;
    if ((p = this.nameToTid(this.match(p, L_NAME))) < 0) return -1;
    if (buf[p + 2] !== 116 /* ,"t(s) */) return this.fastMetaTail(p, lineNo); // metadata with an id (older E2)
    if ((p = this.uint(this.match(p, L_TS))) < 0) return -1;
    this.ts = this.value;
    if (buf[p + 2] === 112 /* ,"p(h) */) return this.fastCounterTail(p, lineNo); // a counter sample with an id (dftracer.js)
    if ((p = this.uint(this.match(p, L_DUR))) < 0) return -1;
    this.dur = this.value;
    if ((p = this.match(p, L_PH_X)) < 0) return -1;
    this.level = -1;
    this.pIdx = -2;
    this.numEvents = -1;
    this.device = 0;
    this.launchId = -1;
    if (buf[p] !== Byte.RBRACE) {
      const p0 = p;
      let q = this.match(p, L_ARGS_HHASH);
      p = -1;
      if (q >= 0) {
        // the usual prefix: "hhash":"…","level":N,"p_idx":N
        q = this.hashValue(q - 1, lineNo, NS_HH);
        if ((q = this.uint(this.match(q, L_LEVEL))) >= 0) {
          this.level = this.value;
          if ((q = this.int(this.match(q, L_PIDX))) >= 0 && this.value >= -1) {
            this.pIdx = this.value;
            const c = buf[q];
            if (c === Byte.RBRACE) p = q + 1;
            else if (c === Byte.COMMA) p = this.eventArgs(q + 1, lineNo);
          }
        }
      }
      if (p < 0) {
        // anything else: the general path from the top of args
        this.level = -1;
        this.pIdx = -2;
        p = this.eventArgs(this.match(p0, L_ARGS), lineNo);
      }
      if (p < 0 || buf[p] !== Byte.RBRACE) return -1;
    }
    if (buf[p + 1] !== Byte.NL) return -1;
    this.record(lineNo);
    return p + 2;
  }

  /** The body of a complete event's `args` after `{`: notes level, p_idx, num_events and hashes. */
  private eventArgs(p: number, lineNo: number): number {
    if (p < 0) return -1;
    const buf = this.buf;
    if (buf[p] === Byte.RBRACE) return p + 1;
    for (;;) {
      if (buf[p] !== Byte.QUOTE) return -1;
      let q = this.match(p, L_FHASH);
      if (q >= 0) {
        p = this.hashValue(q - 1, lineNo, NS_FH);
      } else {
        const ks = p + 1;
        const ke = scanStringBody(buf, ks);
        if (ke < 0 || buf[ke + 1] !== Byte.COLON) return -1;
        p = ke + 2;
        const klen = ke - ks;
        q = -2; // not handled
        if (klen === 5) {
          const k0 = buf[ks];
          if (k0 === 104 /* h */ && eqBytes(buf, ks, ke, KEY_HHASH)) q = this.hashValue(p, lineNo, NS_HH);
          else if (k0 === 102 /* f */ && eqBytes(buf, ks, ke, KEY_FHASH)) q = this.hashValue(p, lineNo, NS_FH);
          else if (k0 === 108 /* l */ && eqBytes(buf, ks, ke, KEY_LEVEL)) {
            q = this.uint(p);
            this.level = this.value;
          } else if (k0 === 112 /* p */ && eqBytes(buf, ks, ke, KEY_PIDX)) {
            q = this.int(p);
            if (this.value < -1) q = -1;
            this.pIdx = this.value;
          }
        } else if (klen === 10 && eqBytes(buf, ks, ke, KEY_NUM)) {
          q = this.uint(p);
          this.numEvents = this.value;
        } else if (klen === 12 && buf[p] === Byte.QUOTE && eqBytes(buf, ks, ke, KEY_DEVICE_TRACK)) {
          this.device = 1;
        } else if (klen === 9 && eqBytes(buf, ks, ke, KEY_LAUNCH_ID)) {
          q = this.uint(p);
          this.launchId = this.value;
        } else if ((buf[p] === Byte.QUOTE || (buf[p]! >= 48 && buf[p]! <= 57)) && ((klen > 5 && eqBytes(buf, ke - 5, ke, SUFFIX_HASH)) || (klen === 3 && eqBytes(buf, ks, ke, KEY_CWD)))) {
          // cmd_hash / exec_hash name SH strings; cwd and other *_hash (newpath_hash, …) name files
          q = this.hashValue(p, lineNo, buf[ks] === 99 && klen > 3 ? NS_SH : buf[ks] === 101 ? NS_SH : NS_FH, true);
        }
        p = q === -2 ? scanValue(buf, p) : q;
      }
      if (p < 0) return -1;
      const d = buf[p];
      if (d === Byte.RBRACE) return p + 1;
      if (d !== Byte.COMMA) return -1;
      p++;
    }
  }

  /** A hash-valued arg at `p` (its opening quote): a 16-hex string, remembered for resolution. */
  private hashValue(p: number, lineNo: number, ns: number, loose = false): number {
    if (p < 0) return -1;
    const buf = this.buf;
    if (buf[p]! >= 48 && buf[p]! <= 57) return this.intHash(p, lineNo, ns);
    if (buf[p] !== Byte.QUOTE) return -1; // not a string: the slow path says so
    if (buf[p + 17] === Byte.QUOTE) {
      // fast: a hash this scanner has already checked and noted (a small direct-mapped cache)
      const dv = this.dv;
      const s = p + 1;
      const w0 = dv.getUint32(s, true);
      const w1 = dv.getUint32(s + 4, true);
      const w2 = dv.getUint32(s + 8, true);
      const w3 = dv.getUint32(s + 12, true);
      const slot = (ns * HASH_CACHE_SLOTS + (Math.imul(w0 ^ w1 ^ w2 ^ w3, 0x9e3779b1) >>> (32 - HASH_CACHE_BITS))) * 4;
      const hc = this.hashCache;
      if (hc[slot] === w0 && hc[slot + 1] === w1 && hc[slot + 2] === w2 && hc[slot + 3] === w3) return p + 18;
      if (isHash16(buf, s, s + 16)) {
        hc[slot] = w0;
        hc[slot + 1] = w1;
        hc[slot + 2] = w2;
        hc[slot + 3] = w3;
        this.reference(s, ns, lineNo);
        return p + 18;
      }
    }
    const e = scanStringBody(buf, p + 1);
    if (e < 0) return -1;
    if (!loose) this.problem('value', lineNo, () => `${ns === NS_HH ? 'hhash' : 'fhash'} ${JSON.stringify(this.text(p + 1, e))} is not a 16-hex-digit hash`);
    return e + 1;
  }

  /**
   * An integer hash (DFTracer 2024 layout: `"fhash":33084`, up to 20 digits) at `p`: its digits
   * are its identity, as text (they may not fit a double).
   */
  private intHash(p: number, lineNo: number, ns: number): number {
    const buf = this.buf;
    let e = p;
    while (buf[e]! >= 48 && buf[e]! <= 57) e++;
    if (e - p > 20 || buf[e] === Byte.DOT || buf[e] === 101 || buf[e] === 69) return -1;
    this.quirk('integer-hashes', lineNo);
    this.reference(p, ns, lineNo, e);
    return e;
  }

  /**
   * Note a (valid) hash reference at `buf[s, e)`: 16 hex digits, or an integer's digits (kept as
   * `#digits`, so an integer never matches a hex string).
   */
  private reference(s: number, ns: number, lineNo: number, e = s + 16): void {
    const h = e - s === 16 && this.buf[s - 1] === Byte.QUOTE ? this.latin1(s, e) : `#${this.latin1(s, e)}`;
    const seen = this.referenced[ns]!;
    if (!seen.has(h)) {
      seen.add(h);
      this.refs.push([ns, h, lineNo]);
    }
  }

  /** `{"name":"…","cat":"…","pid":…,"tid":…,"ph":"M","args":{…}}` (or a `"ph":"C"` counter). */
  private fastMeta(start: number, lineNo: number): number {
    const buf = this.buf;
    this.id = -1;
    let p = this.nameToTid(this.match(start, L_NAME_FIRST));
    if (p < 0) return -1;
    if (buf[p + 2] === 116 /* ,"t(s): a counter */) {
      if ((p = this.uint(this.match(p, L_TS))) < 0) return -1;
      return this.fastCounterTail(p, lineNo);
    }
    return this.fastMetaTail(p, lineNo);
  }

  /**
   * `,"ph":"C"[,"args":{…}]}` of a counter sample (upstream's aggregation records, dftracer.js's
   * counters): a record like metadata for ids and `end.num_events`.
   */
  private fastCounterTail(p: number, lineNo: number): number {
    const buf = this.buf;
    if ((p = this.match(p, L_PH_C)) < 0) return -1;
    if (buf[p] !== Byte.RBRACE) {
      if ((p = this.match(p, L_ARGS)) < 0) return -1;
      p = scanObjectBody(buf, p, 1);
      if (p < 0 || buf[p] !== Byte.RBRACE) return -1;
    }
    if (buf[p + 1] !== Byte.NL) return -1;
    this.recordMeta(lineNo);
    return p + 2;
  }

  /** `,"ph":"M","args":{…}}` of a metadata line. */
  private fastMetaTail(p: number, lineNo: number): number {
    const buf = this.buf;
    if ((p = this.match(p, L_PH_M)) < 0) return -1;
    if ((p = this.match(p, L_ARGS)) < 0) return -1;
    let valS = -1;
    let valE = -1;
    let hhS = -1;
    let hhE = -1;
    let intHashes = false;
    if (buf[p] !== Byte.RBRACE) {
      for (;;) {
        if (buf[p] !== Byte.QUOTE) return -1;
        const ks = p + 1;
        const ke = scanStringBody(buf, ks);
        if (ke < 0 || buf[ke + 1] !== Byte.COLON) return -1;
        p = ke + 2;
        const c = buf[p]!;
        if (c >= 48 && c <= 57 && (eqBytes(buf, ks, ke, KEY_VALUE) || eqBytes(buf, ks, ke, KEY_HHASH))) {
          // an integer hash (DFTracer 2024 layout)
          const s = p;
          while (buf[p]! >= 48 && buf[p]! <= 57) p++;
          if (p - s > 20 || buf[p] === Byte.DOT || buf[p] === 101 || buf[p] === 69) return -1;
          intHashes = true;
          if (buf[ks] === 118 /* value */) {
            valS = s;
            valE = p;
          } else {
            hhS = s;
            hhE = p;
          }
        } else if (buf[p] === Byte.QUOTE && (eqBytes(buf, ks, ke, KEY_VALUE) || eqBytes(buf, ks, ke, KEY_HHASH) || eqBytes(buf, ks, ke, KEY_NAME))) {
          const s = p + 1;
          const e = scanStringBody(buf, s);
          if (e < 0) return -1;
          if (buf[ks] === 118 /* value */) {
            valS = s;
            valE = e;
          } else if (buf[ks] === 104 /* hhash */) {
            hhS = isHash16(buf, s, e) ? s : -1;
            hhE = e;
          }
          p = e + 1;
        } else {
          p = scanValue(buf, p);
          if (p < 0) return -1;
        }
        const d = buf[p];
        if (d === Byte.RBRACE) {
          p++;
          break;
        }
        if (d !== Byte.COMMA) return -1;
        p++;
      }
    } else p++;
    if (buf[p] !== Byte.RBRACE || buf[p + 1] !== Byte.NL) return -1;
    this.metadata++;
    if (intHashes) this.quirk('integer-hashes', lineNo);
    if (hhS >= 0) this.reference(hhS, NS_HH, lineNo, hhE);
    // HH, FH, SH define hashes
    let intValue = false;
    if (this.nameE - this.nameS === 2 && buf[this.nameS + 1] === 72 /* ?H */) {
      const n0 = buf[this.nameS];
      const ns = n0 === 70 ? NS_FH : n0 === 72 ? NS_HH : n0 === 83 ? NS_SH : -1;
      if (ns >= 0) {
        intValue = valS >= 0 && buf[valS]! >= 48 && buf[valS]! <= 57 && buf[valS - 1] !== Byte.QUOTE;
        if (valS >= 0 && (intValue || isHash16(buf, valS, valE))) this.define(ns, intValue ? `#${this.latin1(valS, valE)}` : this.latin1(valS, valE));
        else this.problem('value', lineNo, `${NS_NAMES[ns]} metadata needs args.value, a hash (16 hex digits, or an integer in the 2024 layout)`);
      }
    }
    this.recordMeta(lineNo);
    return p + 2;
  }

  private define(ns: number, h: string): void {
    const d = this.defined[ns]!;
    if (!d.has(h)) {
      d.add(h);
      this.defs.push([ns, h]);
    }
  }

  /** Room for one more record. */
  private reserve(): void {
    if ((this.recordCount + 1) * RECORD_SIZE > this.records.length) this.records = grown(this.records, this.records.length * 2);
  }

  /** A metadata record: its line, id (-1 without one), pid and tid, for per-process counts and ids. */
  private recordMeta(lineNo: number): void {
    this.reserve();
    const r = this.records;
    const o = this.recordCount * RECORD_SIZE;
    r.fill(-1, o, o + RECORD_SIZE);
    r[o + FIELD.LINE] = lineNo;
    r[o + FIELD.ID] = this.id;
    r[o + FIELD.PID] = this.pid;
    r[o + FIELD.TID] = this.tid;
    r[o + FIELD.NUM_EVENTS] = eqBytes(this.buf, this.nameS, this.nameE, B_PROCESS_NAME) ? 1 : -1;
    r[o + FIELD.FLAGS] = FLAG_META;
    this.recordCount++;
  }

  /** A `[` or `]` line: a record of its line and kind only. */
  private marker(flags: number, lineNo: number): void {
    this.reserve();
    const r = this.records;
    const o = this.recordCount * RECORD_SIZE;
    r.fill(-1, o, o + RECORD_SIZE);
    r[o + FIELD.LINE] = lineNo;
    r[o + FIELD.FLAGS] = flags;
    this.recordCount++;
  }

  /** Append the current registers as a record. */
  private record(lineNo: number): void {
    this.reserve();
    let flags = 0;
    const buf = this.buf;
    if (eqBytes(buf, this.catS, this.catE, B_DFTRACER)) {
      if (eqBytes(buf, this.nameS, this.nameE, B_START)) flags = 1;
      else if (eqBytes(buf, this.nameS, this.nameE, B_END)) flags = 2;
    }
    const r = this.records;
    const o = this.recordCount * RECORD_SIZE;
    r[o + FIELD.LINE] = lineNo;
    r[o + FIELD.ID] = this.id;
    r[o + FIELD.PID] = this.pid;
    r[o + FIELD.TID] = this.tid;
    r[o + FIELD.TS] = this.ts;
    r[o + FIELD.DUR] = this.dur;
    r[o + FIELD.LEVEL] = this.level;
    r[o + FIELD.P_IDX] = this.pIdx;
    r[o + FIELD.NUM_EVENTS] = this.numEvents;
    r[o + FIELD.FLAGS] = flags;
    r[o + FIELD.DEVICE_TRACK] = this.device;
    r[o + FIELD.LAUNCH_ID] = this.launchId;
    this.recordCount++;
  }

  // ---- the slow path: JSON.parse, to diagnose, or to accept unusual but valid lines -----------

  private slowLine(start: number, end: number, lineNo: number): void {
    const text = this.text(start, end);
    if (/^\s*$/.test(text)) {
      this.quirk('blank-line', lineNo);
      return;
    }
    let obj: unknown;
    try {
      obj = parseKeepingBigInts(text);
    } catch (e) {
      this.problem('json', lineNo, () => `not valid JSON: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    if (text.charCodeAt(0) === Byte.SPACE || text.charCodeAt(0) === Byte.TAB) this.quirk('indented', lineNo);
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
      this.problem('layout', lineNo, 'each line must be one JSON object');
      return;
    }
    let o = obj as Record<string, unknown>;
    if (isLayout22(o)) {
      // DFTracer 2.2: checked in its own field order, then as the record of ours it stands for
      const r = fromLayout22(o);
      if ('error' in r) {
        this.problem(r.error.startsWith('missing') || r.error.startsWith('fields') ? 'layout' : 'value', lineNo, r.error);
        return;
      }
      o = r.record;
      const bad = checkEnd22(o);
      if (bad) {
        this.problem('num-events', lineNo, bad);
        return;
      }
    }
    const keys = Object.keys(o);
    if (numbersFromStrings(o)) this.quirk('string-numbers', lineNo);
    const ph = o.ph;
    const isInt = (x: unknown, min = 0) => typeof x === 'number' && Number.isInteger(x) && x >= min;
    const order = ph === 'M' || ph === 'C' ? (keys[0] === 'id' ? ['id', ...(ph === 'M' ? M_ORDER : C_ORDER)] : ph === 'M' ? M_ORDER : C_ORDER) : X_ORDER;
    const want = order.filter((k) => k !== 'args' || 'args' in o);
    if (keys.length !== want.length || keys.some((k, i) => k !== want[i])) {
      const missing = want.filter((k) => !(k in o));
      const extra = keys.filter((k) => !want.includes(k));
      this.problem('layout', lineNo, () =>
        missing.length > 0
          ? `missing field${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}`
          : extra.length > 0
            ? `unexpected field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}`
            : `fields out of order: expected ${want.join(', ')}; found ${keys.join(', ')}`,
      );
      return;
    }
    if (typeof o.name !== 'string' || typeof o.cat !== 'string') {
      this.problem('value', lineNo, '"name" and "cat" must be strings');
      return;
    }
    if (!isInt(o.pid) || !isInt(o.tid)) {
      this.problem('value', lineNo, '"pid" and "tid" must be non-negative integers');
      return;
    }
    if (o.args !== undefined && (typeof o.args !== 'object' || o.args === null || Array.isArray(o.args))) {
      this.problem('value', lineNo, '"args" must be an object');
      return;
    }
    const args = (o.args ?? {}) as Record<string, unknown>;
    for (const k of HASH_KEYS) {
      if (k in args && typeof args[k] !== 'string' && !(typeof args[k] === 'number' && Number.isSafeInteger(args[k]))) {
        this.problem('value', lineNo, `args.${k} must be a 16-hex-digit hash string`);
        return;
      }
    }
    if (ph === 'M' || ph === 'C') {
      if (ph === 'C' && !isInt(o.ts)) {
        this.problem('value', lineNo, '"ts" must be a non-negative integer (µs)');
        return;
      }
    } else if (ph !== 'X') {
      this.problem('value', lineNo, () => `unknown "ph" ${JSON.stringify(ph)} (expected "X" or "M")`);
      return;
    } else {
      if (!isInt(o.id)) {
        this.problem('value', lineNo, '"id" must be a non-negative integer');
        return;
      }
      if (!isInt(o.ts) || !isInt(o.dur)) {
        this.problem('value', lineNo, () => `"ts" and "dur" must be non-negative integers (µs); found ts ${JSON.stringify(o.ts)}, dur ${JSON.stringify(o.dur)}`);
        return;
      }
      for (const k of ['level', 'p_idx', 'num_events'] as const) {
        if (k in args && !isInt(args[k], k === 'p_idx' ? -1 : 0)) {
          this.problem('value', lineNo, `args.${k} must be an integer${k === 'p_idx' ? ' (an id, or -1)' : ''}`);
          return;
        }
      }
    }
    // A valid line the fast path could not take (spacing, escapes, unusual numbers): its canonical
    // re-encoding goes through the fast path, so its contents are checked like any other line.
    const saved = this.buf;
    this.setBuf(encoder.encode(stringifyKeepingBigInts(o) + '\n'));
    const ok = this.buf[2] === 105 ? this.fastComplete(0, lineNo) : this.fastMeta(0, lineNo);
    this.setBuf(saved);
    if (ok < 0) this.problem('value', lineNo, 'a value the E2 layout does not allow');
  }
}

/** Marks an integer too long for a double (a 2024 hash), kept as text through JSON.parse. */
const BIG = '\u0000big:';

/**
 * JSON.parse that keeps integers of 16+ digits exactly (hashes of the 2024 layout exceed 2^53) as
 * marked strings; `stringifyKeepingBigInts` writes them back as the same digits.
 */
function parseKeepingBigInts(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  try {
    return JSON.parse(text.replace(/([:,[]\s*)(\d{16,})(?=\s*[,}\]])/g, `$1"${BIG}$2"`));
  } catch {
    return JSON.parse(text); // the pattern met digits inside a string: parse as it is
  }
}

function stringifyKeepingBigInts(o: unknown): string {
  return JSON.stringify(o).replace(/"\\u0000big:(\d+)"/g, '$1');
}

const NUMBER_FIELDS = ['id', 'pid', 'tid', 'ts', 'dur'];
const NUMBER_ARGS = ['level', 'p_idx', 'num_events'];

/** Integer fields given as strings (`"id":"7"`, the 2023 layout) become numbers; true if any did. */
function numbersFromStrings(o: Record<string, unknown>): boolean {
  let changed = false;
  const fix = (obj: Record<string, unknown>, k: string) => {
    const v = obj[k];
    if (typeof v === 'string' && /^-?\d{1,16}$/.test(v)) {
      obj[k] = Number(v);
      changed = true;
    }
  };
  for (const k of NUMBER_FIELDS) fix(o, k);
  const a = o.args;
  if (a && typeof a === 'object' && !Array.isArray(a)) for (const k of NUMBER_ARGS) fix(a as Record<string, unknown>, k);
  return changed;
}
