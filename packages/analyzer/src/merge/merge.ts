/**
 * `dftracer merge`: one trace from many processes' files. Lines are streamed, not parsed as JSON:
 * every line is kept byte for byte except
 * - the `[` line (one at the top of the output) and E1 closing `]` lines, which are dropped;
 * - `"id"` and `"args":{…"p_idx"` of files after the first, shifted so ids stay unique in the
 *   output (file k's ids are offset past the largest id of the files before it); a file that holds
 *   several runs appended one after another (a `[` or `]` inside it, a `start` after its process's
 *   `end`, or ids that start again) has each run shifted on its own, its `[`/`]` lines dropped;
 * - `"pid"` of a process whose pid an earlier file already used (another host), moved to a free
 *   pid so that each process keeps its own tracks and lifecycle.
 * Metadata (HH, FH, SH, thread_name, …) is kept. A `.gz` output is multi-member gzip, like the
 * tracer writes; the first input's gzip members are copied as they are when nothing in it changes.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { gunzipSync, gzip as gzipCb } from 'node:zlib';
import { promisify } from 'node:util';
import { UserError } from '../errors.js';
import { withLayout22Converted } from './convert22.js';
import { isGzipFile, TraceReader } from '../read/lines.js';
import { checkOutputTarget, writeOutput, type OutputFile } from '../output/output-file.js';

const gzip = promisify(gzipCb);

export interface MergeOptions {
  /** Uncompressed bytes per output gzip member (default 4 MiB). */
  memberBytes?: number;
  /** gzip level for rewritten data (default 1, as the tracer writes: 2–3× faster than 6, and about the inputs' size). */
  level?: number;
  /** On-disk input bytes merged so far (of the inputs' total size). */
  onProgress?: (bytesIn: number) => void;
}

export interface MergeResult {
  output: string;
  files: number;
  /** Lines written, `[` included. */
  lines: number;
  events: number;
  metadata: number;
  /** Lines that are not trace events, kept unchanged. */
  otherLines: number;
  /** pids moved because an earlier file used them: `[file, from, to]`. */
  remappedPids: Array<[string, number, number]>;
  /** Inputs whose gzip was truncated or corrupt (their complete part was merged). */
  warnings: string[];
  /** Input files whose compressed bytes were copied unchanged (the first, when it can be). */
  copied: number;
}

const ID_PREFIX = Buffer.from('{"id":');
const PIDX = Buffer.from('"p_idx":');
const PID = Buffer.from(',"pid":');

/** Where the number `readInt` read ends (a module variable: no tuple to allocate per line). */
let intEnd = 0;

/**
 * The integer at `p`, -1 when none; `intEnd` is set to where it ends. A quoted number (`"7"`, the
 * 2023 layout) is read inside its quotes: `p` may be the opening quote, `intEnd` is then the
 * closing one.
 */
function readInt(b: Buffer, p: number): number {
  if (b[p] === 34) {
    const v = readInt(b, p + 1);
    if (v === -1 || b[intEnd] !== 34) {
      intEnd = p;
      return -1;
    }
    return v;
  }
  let neg = false;
  if (b[p] === 45) {
    neg = true;
    p++;
  }
  const s = p;
  let v = 0;
  while (p < b.length && b[p]! >= 48 && b[p]! <= 57) v = v * 10 + (b[p++]! - 48);
  intEnd = p;
  if (p === s) return -1;
  return neg ? -v : v;
}

/** The first byte of [s, e) after spaces and tabs (indented lines: the 2023 layout, the seed's example). */
function skipIndent(b: Buffer, s: number, e: number): number {
  while (s < e && (b[s] === 32 || b[s] === 9)) s++;
  return s;
}

/**
 * Streams the lines of a file to `onLine` (without the newline and any indentation; the buffer is
 * only valid during the call); `afterChunk` runs after each chunk's lines (for backpressure).
 */
async function forEachLine(
  file: string,
  onLine: (b: Buffer, s: number, e: number) => void,
  onProgress?: (n: number) => void,
  afterChunk?: () => Promise<void>,
): Promise<TraceReader> {
  const reader = new TraceReader(file, onProgress);
  let carry: Buffer | null = null;
  for await (const chunk of reader.chunks()) {
    let pos = 0;
    let buf = chunk;
    if (carry) {
      buf = Buffer.concat([carry, chunk]);
      carry = null;
    }
    for (;;) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0) break;
      onLine(buf, skipIndent(buf, pos, nl), nl);
      pos = nl + 1;
    }
    if (pos < buf.length) carry = Buffer.from(buf.subarray(pos));
    if (afterChunk) await afterChunk();
  }
  if (carry && carry.length > 0 && !reader.outcome.gzipError) onLine(carry, skipIndent(carry, 0, carry.length), carry.length);
  if (afterChunk) await afterChunk();
  return reader;
}


/**
 * Where one run of an appended file ends and the next begins (see `validate`; here without
 * parsing): at a `[` after records, at a record after a `]`, at a `start` of a process whose
 * `end` this run already holds, and where ids start again (an id the run has already used, at or
 * below its first: a fork child's copy of a later id is no restart).
 * Both passes over a file feed it the same lines, so they agree on every record's run.
 */
class RunTracker {
  run = 0;
  private records = 0;
  private firstId = -1;
  private closed = false;
  private readonly ended = new Set<number>();
  private ids = new Uint8Array(1 << 10);
  private bigIds = new Set<number>();

  /** A `[` line (`open`) or `]` line. */
  bracket(open: boolean): void {
    if (open && this.records > 0) this.next();
    else this.closed = !open;
  }

  /** A record; returns its run. */
  record(id: number, pid: number, lifecycle: 0 | 1 | 2): number {
    if (this.records > 0 && (this.closed || (id >= 0 && id <= this.firstId && this.used(id)) || (lifecycle === 1 && this.ended.has(pid)))) this.next();
    this.closed = false;
    if (id >= 0) this.use(id);
    if (this.firstId < 0 && id >= 0) this.firstId = id;
    if (lifecycle === 2) this.ended.add(pid);
    this.records++;
    return this.run;
  }

  private next(): void {
    this.run++;
    this.records = 0;
    this.firstId = -1;
    this.ended.clear();
    this.ids.fill(0);
    this.bigIds.clear();
  }

  private used(id: number): boolean {
    if (id >= 2 ** 30) return this.bigIds.has(id);
    return id >>> 3 < this.ids.length && (this.ids[id >>> 3]! & (1 << (id & 7))) !== 0;
  }

  private use(id: number): void {
    if (id >= 2 ** 30) {
      this.bigIds.add(id);
      return;
    }
    if (id >>> 3 >= this.ids.length) {
      let n = this.ids.length;
      while (n <= id >>> 3) n *= 2;
      const b = new Uint8Array(n);
      b.set(this.ids);
      this.ids = b;
    }
    this.ids[id >>> 3]! |= 1 << (id & 7);
  }
}

const START = Buffer.from('"name":"start","cat":"dftracer"');
const END = Buffer.from('"name":"end","cat":"dftracer"');

/** The fields of one record line that merge reads or edits (positions within the line). */
interface RecordKeys {
  /** -1: none (also for the positions). */
  id: number;
  idEnd: number;
  pid: number;
  /** Where `,"pid":` starts, and where its number ends. */
  pp: number;
  pidEnd: number;
  /** 1: the `start` event, 2: the `end` event, else 0. */
  lifecycle: 0 | 1 | 2;
  /** The byte after `"ph":"` (88 X, 77 M), -1 when none. */
  kind: number;
  pIdx: number;
  /** Where `"p_idx":` starts, and where its number ends. */
  xp: number;
  pIdxEnd: number;
}

/** One object, reused for every line (no allocation per line). */
const keys: RecordKeys = { id: -1, idEnd: 0, pid: -1, pp: -1, pidEnd: 0, lifecycle: 0, kind: -1, pIdx: -1, xp: -1, pIdxEnd: 0 };

/**
 * Read a record line's keys. Every search is within the line (a view of it): searching the chunk
 * from the line's start would run on to the end of the chunk whenever the line lacks the text,
 * once per line (quadratic). Fields come in the layout's order (id, name, cat, pid, tid, ts, dur,
 * ph, args), so each search starts where the previous one ended, and `name` and `args` are first
 * looked for at their places. The result is valid until the next call.
 */
function parseRecord(line: Buffer): RecordKeys {
  const k = keys;
  k.id = startsWithId(line) ? readInt(line, ID_PREFIX.length) : -1;
  k.idEnd = k.id >= 0 ? intEnd : 0;
  let from = k.idEnd;
  const np = keyAt(line, k.idEnd + 1, NAME_KEY) ? k.idEnd + 1 : line.indexOf(NAME_KEY, from);
  k.lifecycle = 0;
  if (np >= 0) {
    from = np;
    const c = line[np + NAME_KEY.length]; // compared only for names that begin like start or end
    if (c === 115 && keyAt(line, np, START)) k.lifecycle = 1;
    else if (c === 101 && keyAt(line, np, END)) k.lifecycle = 2;
  }
  let pp = line.indexOf(PID, from);
  if (pp < 0 && from > 0) pp = line.indexOf(PID);
  k.pp = pp;
  k.pid = pp >= 0 ? readInt(line, pp + PID.length) : -1;
  k.pidEnd = intEnd;
  if (pp > from) from = pp;
  const ph = line.indexOf(PH_KEY, from);
  k.kind = ph >= 0 ? line[ph + PH_KEY.length]! : -1;
  if (ph > from) from = ph;
  const ap = ph >= 0 && keyAt(line, ph + PH_KEY.length + 3, ARGS_KEY) ? ph + PH_KEY.length + 3 : line.indexOf(ARGS_KEY, from); // `"ph":"X","args":{`
  k.xp = ap >= 0 ? line.indexOf(PIDX, ap) : -1;
  k.pIdx = k.xp >= 0 ? readInt(line, k.xp + PIDX.length) : -1;
  k.pIdxEnd = intEnd;
  return k;
}

/** A line that is only `[` or `]`: its byte; 0 otherwise. */
function bracketLine(b: Buffer, s: number, e: number): number {
  while (e > s && (b[e - 1] === 32 || b[e - 1] === 13)) e--;
  return e - s === 1 && (b[s] === 91 || b[s] === 93) ? b[s]! : 0;
}

/** `]` then spaces then a record on one line (DFTracer 2024 appending a run): the record's start, else -1. */
function joinedRecord(b: Buffer, s: number, e: number): number {
  if (b[s] !== 93) return -1;
  let p = s + 1;
  while (p < e && (b[p] === 32 || b[p] === 9)) p++;
  return p < e && b[p] === 123 ? p : -1;
}

/** Per input file: its largest id, its pids, its line counts, and whether it can be copied as is. */
interface FileScan {
  /** The largest id of each run (one run unless traces were appended in the file). */
  runMaxIds: number[];
  /** The largest id or p_idx. */
  maxId: number;
  pids: Set<number>;
  lines: number;
  events: number;
  metadata: number;
  other: number;
  /** Complete gzip, `[` first, no `[`, `]` or empty lines after it, one run, newline at the end. */
  copyable: boolean;
  /** All that holds but for one `]` line, the last (a finished trace). */
  copyableButClose: boolean;
  gzipError?: string;
}

async function scanFile(file: string, onProgress?: (n: number) => void): Promise<FileScan> {
  const r: FileScan = { runMaxIds: [-1], maxId: -1, pids: new Set(), lines: 0, events: 0, metadata: 0, other: 0, copyable: true, copyableButClose: false };
  const runs = new RunTracker();
  let lastTerminated = true;
  let closes = 0;
  let closeLast = false;
  const reader = await forEachLine(
    file,
    (b, s, e) => {
      r.lines++;
      lastTerminated = e < b.length && b[e] === 10;
      closeLast = false;
      if (r.lines === 1) {
        if (!(e - s === 1 && b[s] === 91)) r.copyable = false;
        else return;
      }
      const bracket = bracketLine(b, s, e);
      if (bracket === 93) {
        closes++;
        closeLast = true;
      } else if (e === s || bracket !== 0) r.copyable = false;
      if (bracket !== 0) runs.bracket(bracket === 91);
      if (e === s || bracket !== 0) return;
      const joined = joinedRecord(b, s, e);
      if (joined >= 0) {
        runs.bracket(false);
        s = joined;
      }
      if (b[s] !== 123 || b[s + 1] !== 34) {
        r.other++;
        return;
      }
      const { id, pid, lifecycle, kind, pIdx } = parseRecord(b.subarray(s, e));
      const run = runs.record(id, pid, lifecycle);
      while (r.runMaxIds.length <= run) r.runMaxIds.push(-1);
      if (id > r.runMaxIds[run]!) r.runMaxIds[run] = id;
      // a p_idx naming a parent never written (open at finalize) must not be given to a later file
      if (Math.max(id, pIdx) > r.maxId) r.maxId = Math.max(id, pIdx);
      if (pid >= 0) r.pids.add(pid);
      if (kind === 88 /* X */) r.events++;
      else if (kind === 77 /* M */) r.metadata++;
      else r.other++;
    },
    onProgress,
  );
  if (!lastTerminated || reader.outcome.gzipError || r.runMaxIds.length > 1) r.copyable = false;
  r.copyableButClose = r.copyable && closes === 1 && closeLast;
  r.copyable &&= closes === 0;
  if (reader.outcome.gzipError) r.gzipError = reader.outcome.gzipError.message;
  return r;
}

/**
 * The merged output: lines are copied into one growing buffer, cut into gzip members of about
 * `memberBytes` that compress on the thread pool while the next is assembled (two in flight).
 */
class MemberWriter {
  private buf: Buffer;
  private len = 0;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly out: OutputFile,
    private readonly gz: boolean,
    private readonly memberBytes: number,
    private readonly level: number,
  ) {
    this.buf = Buffer.allocUnsafe(memberBytes + (64 << 10));
  }

  get full(): boolean {
    return this.len >= this.memberBytes;
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const b = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(b, 0, 0, this.len);
    this.buf = b;
  }

  /** Bytes [s, e) of `src`. */
  copy(src: Buffer, s: number, e: number): void {
    this.room(e - s);
    if (e - s > 256) {
      this.len += src.copy(this.buf, this.len, s, e);
      return;
    }
    // a loop beats Buffer#copy for the pieces of a line (it makes a view per call)
    const b = this.buf;
    let o = this.len;
    for (let i = s; i < e; i++) b[o++] = src[i]!;
    this.len = o;
  }

  /** A non-negative integer's digits. */
  int(v: number): void {
    if (v >= 1e15) {
      this.text(String(v));
      return;
    }
    this.room(16);
    const b = this.buf;
    let n = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) n++;
    let o = this.len + n;
    this.len = o;
    let x = v;
    do {
      b[--o] = 48 + (x % 10);
      x = Math.floor(x / 10);
    } while (x > 0);
  }

  text(t: string): void {
    this.room(t.length);
    this.len += this.buf.write(t, this.len, 'latin1');
  }

  newline(): void {
    this.room(1);
    this.buf[this.len++] = 10;
  }

  /** Hand the buffered bytes to compression and writing; waits for the member before them. */
  async flush(): Promise<void> {
    if (this.len === 0) return;
    const raw = this.buf.subarray(0, this.len);
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.len = 0;
    const compressed = this.gz ? gzip(raw, { level: this.level }) : Promise.resolve(raw);
    const prev = this.pending;
    this.pending = (async () => {
      const data = await compressed;
      await prev;
      await this.out.write(data);
    })();
    this.pending.catch(() => {}); // observed by the next flush or end()
    await prev;
  }

  /** Bytes that go out as they are (a copied gzip member), after everything before them. */
  async raw(data: Buffer): Promise<void> {
    await this.flush();
    await this.pending;
    await this.out.write(data);
  }

  async end(): Promise<void> {
    await this.flush();
    await this.pending;
  }
}

const NAME_KEY = Buffer.from('"name":"');

/** `key` is at `p` in `l`. */
function keyAt(l: Buffer, p: number, key: Buffer): boolean {
  if (p < 0 || p + key.length > l.length) return false;
  for (let i = 0; i < key.length; i++) if (l[p + i] !== key[i]) return false;
  return true;
}

/** The line starts with `{"id":`. */
function startsWithId(l: Buffer): boolean {
  return l.length > 6 && l[0] === 123 && l[1] === 34 && l[2] === 105 && l[3] === 100 && l[4] === 34 && l[5] === 58;
}
const PH_KEY = Buffer.from('"ph":"');
const ARGS_KEY = Buffer.from('"args":{');

/** The state of a merge across its input files. */
interface MergeState {
  /** The largest id (or p_idx) written so far: the next run's ids go past it. */
  top: number;
  /** pids written so far (remap targets included). */
  usedPids: Set<number>;
  nextFreePid: number;
  res: MergeResult;
}

/**
 * One input file, streamed once: every line copied to `w` with its id and p_idx shifted past the
 * ids written before its run and its pid moved when an earlier file used it.
 */
async function mergeFile(file: string, first: boolean, st: MergeState, w: MemberWriter, onProgress?: (n: number) => void): Promise<void> {
  const res = st.res;
  const runs = new RunTracker();
  const shifts: number[] = [];
  const pidMap = new Map<number, number>();
  let lineNo = 0;
  let top = st.top;
  const mapPid = (pid: number): number => {
    let to = pidMap.get(pid);
    if (to !== undefined) return to;
    to = pid;
    if (st.usedPids.has(pid)) {
      while (st.usedPids.has(st.nextFreePid)) st.nextFreePid++;
      to = st.nextFreePid++;
      res.remappedPids.push([file, pid, to]);
    }
    st.usedPids.add(to);
    pidMap.set(pid, to);
    return to;
  };
  const reader = await forEachLine(
    file,
    (b, s, e) => {
      lineNo++;
      if (lineNo === 1 && e - s === 1 && b[s] === 91) return; // the `[` line
      const bracket = bracketLine(b, s, e);
      if (bracket !== 0) runs.bracket(bracket === 91); // a run's `[` or closing `]`
      if (e === s || bracket !== 0) return;
      const joined = joinedRecord(b, s, e);
      if (joined >= 0) {
        runs.bracket(false);
        s = joined;
      }
      res.lines++;
      if (b[s] !== 123 || b[s + 1] !== 34) {
        res.otherLines++;
        w.copy(b, s, e);
        w.newline();
        return;
      }
      const line = b.subarray(s, e);
      const rec = parseRecord(line);
      const { id, idEnd, pid, pidEnd, pp, lifecycle, pIdx, pIdxEnd, xp } = rec;
      if (rec.kind === 88 /* X */) res.events++;
      else if (rec.kind === 77 /* M */) res.metadata++;
      else res.otherLines++;
      const run = runs.record(id, pid, lifecycle);
      while (shifts.length <= run) shifts.push(first && shifts.length === 0 ? 0 : top + 1);
      const shift = shifts[run]!;
      if (id >= 0 && id + shift > top) top = id + shift;
      if (pIdx >= 0 && pIdx + shift > top) top = pIdx + shift;
      const newPid = pid >= 0 ? mapPid(pid) : pid;
      // the edits, in line order: id, pid, p_idx (a quoted number keeps its quotes)
      let at = 0;
      if (shift !== 0 && id >= 0) {
        const q = line[ID_PREFIX.length] === 34 ? 1 : 0;
        w.copy(line, 0, ID_PREFIX.length + q);
        w.int(id + shift);
        at = idEnd;
      }
      if (newPid !== pid && pp >= at) {
        const q = line[pp + PID.length] === 34 ? 1 : 0;
        w.copy(line, at, pp + PID.length + q);
        w.int(newPid);
        at = pidEnd;
      }
      if (shift !== 0 && pIdx >= 0 && xp >= at) {
        const q = line[xp + PIDX.length] === 34 ? 1 : 0;
        w.copy(line, at, xp + PIDX.length + q);
        w.int(pIdx + shift);
        at = pIdxEnd;
      }
      w.copy(line, at, line.length);
      w.newline();
    },
    onProgress,
    async () => {
      if (w.full) await w.flush();
    },
  );
  if (reader.outcome.gzipError) res.warnings.push(`${file}: ${reader.outcome.gzipError.message}; its complete part was merged`);
  st.top = top;
}

/**
 * Merge `inputs` into `output` (gzip when it ends with `.gz`), written safely: to a temporary file
 * beside it, renamed when complete (see `OutputFile`). Files in DFTracer 2.2's layout are first
 * rewritten in ours (`convert22.ts`), so that the output is one trace in our layout.
 */
export async function mergeTraces(inputs: string[], output: string, opts: MergeOptions = {}): Promise<MergeResult> {
  if (inputs.length === 0) throw new UserError('merge: no input files', 2);
  checkOutputTarget('merge', output, inputs, true);
  return withLayout22Converted(inputs, async (files) => {
    const res = await mergeOurLayout(files, output, opts);
    // the inputs by their names, not their rewritten copies'
    const named = new Map(files.map((f, i) => [f, inputs[i]!]));
    for (const [f, o] of named) if (f !== o) res.warnings = res.warnings.map((w) => w.split(f).join(o));
    res.remappedPids = res.remappedPids.map(([f, a, b]) => [named.get(f) ?? f, a, b]);
    return res;
  });
}

async function mergeOurLayout(inputs: string[], output: string, opts: MergeOptions): Promise<MergeResult> {
  checkOutputTarget('merge', output, inputs, true);
  const gzOut = output.endsWith('.gz');
  const res: MergeResult = { output, files: inputs.length, lines: 0, events: 0, metadata: 0, otherLines: 0, remappedPids: [], warnings: [], copied: 0 };
  const sizes = inputs.map((f) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  });
  let done = 0;
  await writeOutput('merge', output, async (out) => {
    const w = new MemberWriter(out, gzOut, opts.memberBytes ?? 4 << 20, opts.level ?? 1);
    const st: MergeState = { top: -1, usedPids: new Set(), nextFreePid: 1 << 22 /* above Linux's largest pid */, res };
    for (let k = 0; k < inputs.length; k++) {
      const file = inputs[k]!;
      const size = sizes[k]!;
      // the first file is scanned, then copied or rewritten: each pass counts half its size
      const scanned = k === 0 && gzOut && (await isGzipFile(file));
      const part = scanned ? 0.5 : 1;
      if (scanned && (await copyFirst(file, st, w, (n) => opts.onProgress?.(n * part)))) {
        done += size;
        opts.onProgress?.(done);
        continue;
      }
      if (res.lines === 0) {
        w.text('[\n');
        res.lines++;
      }
      const before = done + size * (1 - part);
      await mergeFile(file, k === 0, st, w, (n) => opts.onProgress?.(before + n * part));
      done += size;
    }
    // the array is closed after the last file, as DFTracer's own tools write a merged trace
    w.text(']\n');
    res.lines++;
    await w.end();
  });
  return res;
}

/**
 * The first input's gzip members, copied as they are when nothing in them changes (a complete
 * gzip, `[` first, no `[`, `]` or empty lines after it, one run, newline at the end), or all but
 * the last when that member holds only the closing `]` (a finished trace, as the tracer writes
 * it): false when it cannot be.
 */
async function copyFirst(file: string, st: MergeState, w: MemberWriter, onProgress: (n: number) => void): Promise<boolean> {
  const scan = await scanFile(file, onProgress);
  let end = Infinity;
  if (!scan.copyable) {
    if (!scan.copyableButClose) return false;
    end = await closeMemberOffset(file);
    if (end < 0) return false;
  }
  const res = st.res;
  const fh = await open(file, 'r');
  try {
    const stream = fh.createReadStream({ highWaterMark: 1 << 20, start: 0, ...(end !== Infinity ? { end: end - 1 } : {}), autoClose: false });
    for await (const chunk of stream) await w.raw(chunk as Buffer);
  } finally {
    await fh.close();
  }
  for (const p of scan.pids) st.usedPids.add(p);
  st.top = Math.max(st.top, scan.maxId);
  res.copied++;
  res.lines += scan.lines - (end !== Infinity ? 1 : 0);
  res.events += scan.events;
  res.metadata += scan.metadata;
  res.otherLines += scan.other;
  return true;
}

/**
 * Where the file's last gzip member starts when it holds only a `]` line (a tracer's finalize
 * writes it on its own), else -1. Looks for a gzip header in the file's last bytes only.
 */
async function closeMemberOffset(file: string): Promise<number> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const n = Math.min(size, 64);
    const tail = Buffer.alloc(n);
    await fh.read(tail, 0, n, size - n);
    for (let i = n - 18; i >= 0; i--) {
      if (tail[i] !== 0x1f || tail[i + 1] !== 0x8b || tail[i + 2] !== 8) continue;
      try {
        if (gunzipSync(tail.subarray(i)).toString('latin1').trim() === ']') return size - n + i;
      } catch {
        /* not a member boundary */
      }
    }
    return -1;
  } finally {
    await fh.close();
  }
}
