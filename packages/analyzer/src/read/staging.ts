/**
 * The one reading path of the DuckDB commands (summary, report, compare, query, export): each trace
 * is decompressed here, in Node, and its records written as plain newline-delimited JSON to a
 * private temporary file that DuckDB reads (in parallel: it splits an uncompressed file, not a gzip
 * one), while the records are counted. Every later stage is checked against that count
 * (`assertAllRead`): fewer rows than records is an error naming the file and the line, never a
 * smaller answer.
 *
 * Why not DuckDB's own gzip reader: on a multi-member gzip file (one member per tracer flush) it
 * stops early on some member layouts, silently (DuckDB 1.5: 1,158 of 1,646 lines of a file of 478
 * small members; `read_csv` stops at the same line). Node's zlib reads every member.
 *
 * What is normalised: the `[` and `]` lines of our layout (anywhere: appended runs), a `]` that
 * shares a line with the next run's first record, blank lines, leading spaces. Every other line is
 * handed over as it is and counted as a record; one DuckDB cannot read comes back as an all-null
 * row, counted by `unreadableRows`.
 *
 * DFTracer 2.2's layout (no brackets, integer `ph`, a `type` field, its own field order) is read
 * here too: `"ph":1`..`4` becomes `"X"`, `"C"`, `"C"` (aggregated: told from counter samples by
 * `args.dft_cnt`, as in our layout) and `"M"`, so that every later stage sees one layout.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { TraceReader } from './lines.js';

/** One input trace, staged as plain NDJSON. */
export interface StagedTrace {
  /** The input path, as given. */
  file: string;
  /** Its position in the command's file list. */
  index: number;
  /** The plain NDJSON file DuckDB reads. */
  path: string;
  /** Records in the file: lines that are neither blank nor a bracket alone. */
  records: number;
  /** Lines in the file (decompressed). */
  lines: number;
  /** The gzip stream ended early (truncated or corrupt): only what came before it was staged. */
  gzipError?: string;
}

const NL = 10;
const SPACE = 32;
const TAB = 9;
const CR = 13;
const OPEN = 91; // [
const CLOSE = 93; // ]
const BRACE = 123; // {
const PH_KEY = Buffer.from('"ph":');
/** DFTracer 2.2's integer phases ('1'..'4') as our letters; aggregated records (3) are `C` with `args.dft_cnt`. */
const PH_LETTER: Record<number, Buffer> = { 49: Buffer.from('"X"'), 50: Buffer.from('"C"'), 51: Buffer.from('"C"'), 52: Buffer.from('"M"') };

/**
 * Finds the integer `ph` digit of the record on [s, e) (2.2 layout), or -1 (a letter, or none).
 * The last search's hit is remembered, so that lines without `"ph":` do not each search the rest
 * of the chunk (linear in the chunk, not quadratic).
 */
class PhFinder {
  private buf: Buffer | null = null;
  private at = -1;

  /** Forget the last hit: a new chunk (a buffer may be reused for the next one). */
  reset(): void {
    this.buf = null;
  }

  find(b: Buffer, s: number, e: number): number {
    if (b !== this.buf || this.at < s) {
      const k = b.indexOf(PH_KEY, s);
      this.buf = b;
      this.at = k < 0 ? b.length : k;
    }
    return integerPhAt(b, this.at, e);
  }
}

/** The digit's position when the `"ph":` at k is on the line ending at e and an integer 1..4 follows; else -1. */
function integerPhAt(b: Buffer, k: number, e: number): number {
  if (k >= e) return -1;
  const d = k + PH_KEY.length;
  if (d >= e || PH_LETTER[b[d]!] === undefined) return -1;
  const after = b[d + 1];
  return after === 44 || after === 125 ? d : -1; // "," or "}": one digit
}

/** Output buffer size: writes of about this many bytes. */
const OUT = 1 << 20;

/**
 * Decompressed chunk size. Smaller chunks die young (freed by scavenges as staging runs); 1 MiB ones
 * wait for a full GC that does not come while DuckDB loads (1 M events: peak RSS +50 MiB over
 * DuckDB's own gzip reading; +35 MiB at 256 KiB; 64 KiB cost 8 % more CPU for little less).
 */
const STAGE_CHUNK = 1 << 18;

/**
 * A sink for normalised lines: copies them into a buffer written to `fd` when full. A run of
 * lines that need no change is copied as one slice.
 */
class Sink {
  private buf = Buffer.allocUnsafe(OUT);
  private len = 0;
  constructor(private readonly fd: number) {}

  put(src: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.len + n > this.buf.length) {
      this.flush();
      if (n > this.buf.length) {
        writeSync(this.fd, src, start, n);
        return;
      }
    }
    src.copy(this.buf, this.len, start, end);
    this.len += n;
  }

  newline(): void {
    if (this.len === this.buf.length) this.flush();
    this.buf[this.len++] = NL;
  }

  flush(): void {
    let off = 0;
    while (off < this.len) off += writeSync(this.fd, this.buf, off, this.len - off);
    this.len = 0;
  }
}

/** Position of the first byte of [s, e) that is not a space, tab or CR. */
function skipBlank(b: Buffer, s: number, e: number): number {
  while (s < e && (b[s] === SPACE || b[s] === TAB || b[s] === CR)) s++;
  return s;
}

/**
 * Where the record on line [s, e) (no `\n`) starts, or -1 when the line holds none (blank, or a
 * bracket alone). A `]` followed by `{` (a run appended to a closed one) holds the next run's record.
 */
function recordStart(b: Buffer, s: number, e: number): number {
  s = skipBlank(b, s, e);
  if (s === e) return -1;
  const c = b[s];
  if (c === BRACE) return s;
  if (c === OPEN || c === CLOSE) {
    const t = skipBlank(b, s + 1, e);
    if (t === e) return -1;
    if (b[t] === BRACE) return t;
    // "],": a bracket with a trailing comma, and nothing else
    if (b[t] === 44 && skipBlank(b, t + 1, e) === e) return -1;
  }
  return s;
}

/** Decompress one trace and write its records, one a line, to `out`. */
async function stageOne(file: string, index: number, out: string): Promise<StagedTrace> {
  const fd = openSync(out, 'w');
  const sink = new Sink(fd);
  const reader = new TraceReader(file, undefined, STAGE_CHUNK);
  let records = 0;
  let lines = 0;
  let carry: Buffer | null = null;
  const ph = new PhFinder();
  // one line [s, e): copied as is when it starts with "{", else normalised
  const line = (b: Buffer, s: number, e: number, run: { from: number }) => {
    lines++;
    if (b[s] === BRACE) {
      records++;
      const d = ph.find(b, s, e);
      if (d >= 0) {
        // the 2.2 layout: everything up to the digit as is, then the letter
        sink.put(b, run.from, d);
        sink.put(PH_LETTER[b[d]!]!, 0, 3);
        run.from = d + 1;
      }
      return;
    }
    // a line to change: write the unchanged run before it, then this line's record (if any)
    if (run.from < s) sink.put(b, run.from, s);
    run.from = e + 1;
    const r = recordStart(b, s, e);
    if (r < 0) return;
    records++;
    const d = ph.find(b, r, e);
    if (d >= 0) {
      sink.put(b, r, d);
      sink.put(PH_LETTER[b[d]!]!, 0, 3);
      sink.put(b, d + 1, e);
    } else sink.put(b, r, e);
    sink.newline();
  };
  // the whole lines of b[from, to) (to just after a newline): runs of lines that need no change are copied as one slice
  const region = (b: Buffer, from: number, to: number) => {
    ph.reset();
    const run = { from };
    let s = from;
    for (let e = b.indexOf(NL, s); e >= 0 && e < to; e = b.indexOf(NL, s)) {
      line(b, s, e, run);
      s = e + 1;
    }
    if (run.from < to) sink.put(b, run.from, to);
  };
  try {
    for await (const chunk of reader.chunks()) {
      let from = 0;
      if (carry) {
        // the line cut at the previous chunk's end: joined alone, so that no chunk is copied whole
        const nl = chunk.indexOf(NL);
        if (nl < 0) {
          carry = Buffer.concat([carry, chunk]);
          continue;
        }
        const joined = Buffer.concat([carry, chunk.subarray(0, nl + 1)]);
        region(joined, 0, joined.length);
        carry = null;
        from = nl + 1;
      }
      const last = chunk.lastIndexOf(NL);
      if (last >= from) {
        region(chunk, from, last + 1);
        from = last + 1;
      }
      if (from < chunk.length) carry = Buffer.from(chunk.subarray(from));
    }
    // a last line without a newline (the 2024 layout's closing "]" has none); not when the gzip
    // stream broke off: then it is the cut, and the warning says only the complete part was read
    if (carry && carry.length > 0 && !reader.outcome.gzipError) {
      ph.reset();
      const run = { from: 0 };
      line(carry, 0, carry.length, run);
      if (run.from < carry.length) {
        sink.put(carry, run.from, carry.length);
        sink.newline();
      }
    }
    sink.flush();
  } finally {
    closeSync(fd);
  }
  const gz = reader.outcome.gzipError;
  return { file, index, path: out, records, lines, ...(gz ? { gzipError: gz.message } : {}) };
}

/**
 * Stage every trace into `dir` (`<first + index>.ndjson`), a few files at a time (decompression
 * runs on libuv's threads). Unreadable files throw.
 */
export async function stageTraces(files: readonly string[], dir: string, first = 0): Promise<StagedTrace[]> {
  const out: StagedTrace[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      out[i] = await stageOne(files[i]!, i, join(dir, `${first + i}.ndjson`));
    }
  };
  await Promise.all(Array.from({ length: Math.min(files.length, Math.max(2, availableParallelism())) }, worker));
  return out;
}

/** The 1-based line of a file's `k`-th record (1-based): read again, only when reporting a loss. */
export async function lineOfRecord(file: string, k: number): Promise<number> {
  const reader = new TraceReader(file);
  let records = 0;
  let lines = 0;
  let carry: Buffer | null = null;
  for await (let chunk of reader.chunks()) {
    if (carry) chunk = Buffer.concat([carry, chunk]);
    let s = 0;
    for (let e = chunk.indexOf(NL); e >= 0; e = chunk.indexOf(NL, s)) {
      lines++;
      if (recordStart(chunk, s, e) >= 0 && ++records === k) return lines;
      s = e + 1;
    }
    carry = chunk.subarray(s);
  }
  return lines + 1;
}

/** A stage of reading returned fewer records than the file holds. */
export class ReadShortError extends UserError {
  constructor(
    readonly file: string,
    readonly read: number,
    readonly records: number,
    /** The line at or before which reading stopped; null: not known. */
    readonly line: number | null,
    stage: string,
  ) {
    super(
      `${file}: ${stage} returned ${read.toLocaleString('en-US')} of its ${records.toLocaleString('en-US')} records${line === null ? '' : `; reading stopped at or before line ${line.toLocaleString('en-US')}`}. ` +
        'Nothing was analysed: a partial answer would be wrong (please report this with the file).',
    );
    this.name = 'ReadShortError';
  }
}

/**
 * Throw `ReadShortError` for the first trace whose row count in `counts` (trace index → rows, every
 * row read, unreadable ones included) is not its record count.
 */
export async function assertAllRead(staged: readonly StagedTrace[], counts: ReadonlyMap<number, number>, stage: string): Promise<void> {
  for (const t of staged) {
    const n = counts.get(t.index) ?? 0;
    if (n !== t.records) throw new ReadShortError(t.file, n, t.records, await lineOfRecord(t.file, Math.min(n, t.records) + 1), stage);
  }
}
