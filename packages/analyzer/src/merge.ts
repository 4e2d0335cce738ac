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
import { createWriteStream, statSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { gzip as gzipCb } from 'node:zlib';
import { promisify } from 'node:util';
import { UserError } from './errors.js';
import { isGzipFile, TraceReader } from './lines.js';

const gzip = promisify(gzipCb);

export interface MergeOptions {
  /** Uncompressed bytes per output gzip member (default 4 MiB). */
  memberBytes?: number;
  /** gzip level for rewritten data (default 6). */
  level?: number;
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

/**
 * Digits at `p`: [value, end]; value -1 when none. A quoted number (`"7"`, the 2023 layout) is
 * read inside its quotes: `p` may be the opening quote, `end` is then the closing one.
 */
function readInt(b: Buffer, p: number): [number, number] {
  if (b[p] === 34) {
    const [v, end] = readInt(b, p + 1);
    return v === -1 || b[end] !== 34 ? [-1, p] : [v, end];
  }
  let neg = false;
  if (b[p] === 45) {
    neg = true;
    p++;
  }
  const s = p;
  let v = 0;
  while (p < b.length && b[p]! >= 48 && b[p]! <= 57) v = v * 10 + (b[p++]! - 48);
  if (p === s) return [-1, s];
  return [neg ? -v : v, p];
}

/** Per input file: what the merge has to change. */
interface FileScan {
  maxId: number;
  pids: Set<number>;
  /** The file can be copied verbatim: complete gzip, `[` first, no `]`, newline at the end. */
  copyable: boolean;
  gzipError?: string;
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

const PH_X = Buffer.from('"ph":"X"');
const PH_M = Buffer.from('"ph":"M"');

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

/** A record's id, pid and whether it is the `start` (1) or `end` (2) event, for `RunTracker`. */
function recordKeys(b: Buffer, s: number, e: number): [number, number, 0 | 1 | 2] {
  const id = b.compare(ID_PREFIX, 0, ID_PREFIX.length, s, s + ID_PREFIX.length) === 0 ? readInt(b, s + ID_PREFIX.length)[0] : -1;
  const pp = b.indexOf(PID, s);
  const pid = pp >= 0 && pp < e ? readInt(b, pp + PID.length)[0] : -1;
  const at = (x: Buffer) => {
    const i = b.indexOf(x, s);
    return i >= 0 && i < e;
  };
  return [id, pid, at(START) ? 1 : at(END) ? 2 : 0];
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
  maxId: number;
  pids: Set<number>;
  lines: number;
  events: number;
  metadata: number;
  other: number;
  /** Complete gzip, `[` first, no `]` or empty lines, newline at the end. */
  copyable: boolean;
  gzipError?: string;
}

async function scanFile(file: string, onProgress?: (n: number) => void): Promise<FileScan> {
  const r: FileScan = { runMaxIds: [-1], maxId: -1, pids: new Set(), lines: 0, events: 0, metadata: 0, other: 0, copyable: true };
  const runs = new RunTracker();
  let lastTerminated = true;
  const reader = await forEachLine(
    file,
    (b, s, e) => {
      r.lines++;
      lastTerminated = e < b.length && b[e] === 10;
      if (r.lines === 1) {
        if (!(e - s === 1 && b[s] === 91)) r.copyable = false;
        else return;
      }
      const bracket = bracketLine(b, s, e);
      if (e === s || bracket !== 0) {
        r.copyable = false;
        if (bracket !== 0) runs.bracket(bracket === 91);
        return;
      }
      const joined = joinedRecord(b, s, e);
      if (joined >= 0) {
        runs.bracket(false);
        s = joined;
      }
      if (b[s] !== 123 || b[s + 1] !== 34) {
        r.other++;
        return;
      }
      const [id, pid, lifecycle] = recordKeys(b, s, e);
      const run = runs.record(id, pid, lifecycle);
      while (r.runMaxIds.length <= run) r.runMaxIds.push(-1);
      if (id > r.runMaxIds[run]!) r.runMaxIds[run] = id;
      if (id > r.maxId) r.maxId = id;
      if (pid >= 0) r.pids.add(pid);
      const x = b.indexOf(PH_X, s);
      if (x >= 0 && x < e) r.events++;
      else {
        const m = b.indexOf(PH_M, s);
        if (m >= 0 && m < e) r.metadata++;
        else r.other++;
      }
    },
    onProgress,
  );
  if (!lastTerminated || reader.outcome.gzipError || r.runMaxIds.length > 1) r.copyable = false;
  if (reader.outcome.gzipError) r.gzipError = reader.outcome.gzipError.message;
  return r;
}

/** Merge `inputs` into `output` (gzip when it ends with `.gz`). */
export async function mergeTraces(inputs: string[], output: string, opts: MergeOptions = {}): Promise<MergeResult> {
  if (inputs.length === 0) throw new UserError('merge: no input files', 2);
  const gzOut = output.endsWith('.gz');
  const memberBytes = opts.memberBytes ?? 4 << 20;
  const level = opts.level ?? 6;
  const res: MergeResult = { output, files: inputs.length, lines: 0, events: 0, metadata: 0, otherLines: 0, remappedPids: [], warnings: [], copied: 0 };
  const out = createWriteStream(output, { mode: 0o644 });
  const outDone = new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    out.on('finish', resolve);
  });
  const write = (b: Buffer) =>
    new Promise<void>((resolve, reject) => {
      out.write(b, (err) => (err ? reject(err) : resolve()));
    });

  // output: one gzip member per `memberBytes`, compressed on the thread pool while the next
  // member is assembled (at most two in flight)
  let parts: Buffer[] = [];
  let partsLen = 0;
  let pending: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (partsLen === 0) return;
    const raw = Buffer.concat(parts, partsLen);
    parts = [];
    partsLen = 0;
    const compressed = gzOut ? gzip(raw, { level }) : Promise.resolve(raw);
    const prev = pending;
    pending = (async () => {
      const data = await compressed;
      await prev;
      await write(data);
    })();
    await prev;
  };
  const push = (b: Buffer) => {
    parts.push(b);
    partsLen += b.length;
  };

  // progress counts every input twice (a scan, then the copy or rewrite)
  const sizes = inputs.map((f) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  });
  let done = 0;
  const progress = (n: number) => opts.onProgress?.(done + n);
  let maxNewId = -1;
  const usedPids = new Set<number>();
  let nextFreePid = 1 << 22; // above Linux's default pid_max
  try {
    for (let k = 0; k < inputs.length; k++) {
      const file = inputs[k]!;
      const scan = await scanFile(file, progress);
      done += sizes[k]!;
      if (scan.gzipError) res.warnings.push(`${file}: ${scan.gzipError}; its complete part was merged`);
      const pidMap = new Map<number, number>();
      for (const p of scan.pids) {
        if (!usedPids.has(p)) continue;
        while (usedPids.has(nextFreePid) || scan.pids.has(nextFreePid)) nextFreePid++;
        pidMap.set(p, nextFreePid);
        res.remappedPids.push([file, p, nextFreePid]);
        usedPids.add(nextFreePid++);
      }
      for (const p of scan.pids) if (!pidMap.has(p)) usedPids.add(p);
      // each run's ids go past the largest id written before it
      const shifts: number[] = [];
      let top = maxNewId;
      for (let run = 0; run < scan.runMaxIds.length; run++) {
        const shift = k === 0 && run === 0 ? 0 : top + 1;
        shifts.push(shift);
        if (scan.runMaxIds[run]! >= 0) top = Math.max(top, scan.runMaxIds[run]! + shift);
      }
      res.events += scan.events;
      res.metadata += scan.metadata;
      res.otherLines += scan.other;

      if (k === 0 && scan.copyable && gzOut && (await isGzipFile(file))) {
        // the first file's members go out as they are: they start with the `[` line
        const fh = await open(file, 'r');
        try {
          let n = 0;
          for await (const chunk of fh.createReadStream({ highWaterMark: 1 << 20 })) {
            await write(chunk as Buffer);
            progress((n += (chunk as Buffer).length));
          }
        } finally {
          await fh.close();
        }
        res.copied++;
        res.lines += scan.lines;
      } else {
        if (res.lines === 0) {
          push(Buffer.from('[\n'));
          res.lines++;
        }
        const runs = new RunTracker();
        let lineNo = 0;
        await forEachLine(
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
            let shift = shifts[0]!;
            if (b[s] === 123 && b[s + 1] === 34) {
              const [id, pid, lifecycle] = recordKeys(b, s, e);
              shift = shifts[runs.record(id, pid, lifecycle)]!;
            }
            push(rewrite(b, s, e, shift, pidMap));
            res.lines++;
          },
          progress,
          async () => {
            if (partsLen >= memberBytes) await flush();
          },
        );
      }
      maxNewId = Math.max(maxNewId, top);
      done += sizes[k]!;
    }
    // the array is closed after the last file, as DFTracer's own tools write a merged trace
    push(Buffer.from(']\n'));
    res.lines++;
    await flush();
    await pending;
  } catch (e) {
    out.destroy();
    await rm(output, { force: true });
    throw e;
  }
  out.end();
  await outDone;
  return res;
}

/** One output line (newline included) with the id and p_idx shifted and the pid remapped. */
function rewrite(b: Buffer, s: number, e: number, shift: number, pidMap: Map<number, number>): Buffer {
  const isEvent = b[s] === 123 && b[s + 1] === 34;
  if (!isEvent || (shift === 0 && pidMap.size === 0)) {
    const out = Buffer.allocUnsafe(e - s + 1);
    b.copy(out, 0, s, e);
    out[e - s] = 10;
    return out;
  }
  const line = b.subarray(s, e);
  const edits: Array<[number, number, string]> = []; // [start, end, replacement] within line
  if (shift !== 0 && line.compare(ID_PREFIX, 0, ID_PREFIX.length, 0, ID_PREFIX.length) === 0) {
    const [id, end] = readInt(line, ID_PREFIX.length);
    const q = line[ID_PREFIX.length] === 34 ? 1 : 0; // a quoted id keeps its quotes
    if (id >= 0) edits.push([ID_PREFIX.length + q, end, String(id + shift)]);
  }
  if (pidMap.size > 0) {
    const pp = line.indexOf(PID);
    if (pp >= 0) {
      const [pid, end] = readInt(line, pp + PID.length);
      const to = pidMap.get(pid);
      const q = line[pp + PID.length] === 34 ? 1 : 0;
      if (to !== undefined) edits.push([pp + PID.length + q, end, String(to)]);
    }
  }
  if (shift !== 0) {
    const ap = line.indexOf('"args":{');
    const pp = ap >= 0 ? line.indexOf(PIDX, ap) : -1;
    if (pp >= 0) {
      const [p, end] = readInt(line, pp + PIDX.length);
      const q = line[pp + PIDX.length] === 34 ? 1 : 0;
      if (p >= 0) edits.push([pp + PIDX.length + q, end, String(p + shift)]);
    }
  }
  edits.sort((x, y) => x[0] - y[0]);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const [a, z, r] of edits) {
    pieces.push(line.subarray(at, a), Buffer.from(r, 'latin1'));
    at = z;
  }
  pieces.push(line.subarray(at), Buffer.from('\n'));
  return Buffer.concat(pieces);
}
