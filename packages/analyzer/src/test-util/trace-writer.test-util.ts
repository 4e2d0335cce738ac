/**
 * A small, synchronous writer of DFTracer "E2" trace files, byte for byte in the layout that
 * @dftracer/core writes: line 1 `[`, one JSON object per line, fields in a fixed order, metadata
 * lines (`HH`, `FH`, `SH`, `thread_name`, `process_name`, `CM`) with ids of the same sequence as
 * events, a `start`/`end` pair (`num_events` counting every record before `end`) and a closing
 * `]`. Options write upstream DFTracer's older layouts instead (integer hashes, numbers as
 * strings, no ids on metadata, `]` without a newline or none).
 * Compressed output is a multi-member gzip: every flush is one complete member.
 *
 * Used by the tests (to make real fixtures, and deliberately broken copies of them) and by the
 * benchmark's generator. Not part of the public API.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { dftHash } from './hash.js';

export type ArgValue = string | number | boolean | null | ArgValue[] | { [k: string]: ArgValue };
export type Args = Record<string, ArgValue>;

export interface TraceWriterOptions {
  /** Output path; gzip-compressed (multi-member) when it ends with `.gz`. */
  path: string;
  pid?: number;
  /** Main thread id (default: the pid). */
  tid?: number;
  hostname?: string;
  /** Write `args` (hhash, level, p_idx, …); false mimics DFTRACER_INC_METADATA=0. Default true. */
  metadata?: boolean;
  /** Uncompressed bytes per gzip member / write (default 64 KiB). */
  memberBytes?: number;
  /** gzip level (default 1, as a tracer would use). */
  level?: number;
  /** Metadata records take ids (default true; false as dftracer.js before 0.2 and DFTracer late 2025). */
  metaIds?: boolean;
  /** Hashes as 16-hex strings (default) or as integers (DFTracer 2024: the 64-bit value, unquoted). */
  hashes?: 'hex' | 'int';
  /** Numbers as strings (`"id":"7"`, `"ret":"4096"`: the DLIO profiler / DFTracer 2023 layout). */
  stringNumbers?: boolean;
  /** How `close()` ends the array after `end`: a `]` line (default), `]` without newline (2024), none. */
  closeBracket?: 'line' | 'no-newline' | 'none';
  /** Add to the end of an existing file (a tracer appending another run's trace to it). */
  append?: boolean;
  /**
   * Written before the first record instead of the `[` line: the spaces that DFTracer 2023/2024
   * put before a run's first event (only the file's first run has them overwritten by `[`).
   */
  prefix?: string;
}

export interface Span {
  readonly id: number;
  readonly name: string;
  readonly cat: string;
  readonly tid: number;
  readonly ts: number;
  readonly level: number;
  readonly pIdx: number;
  args?: Args;
}

const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/** JSON-encode a string (fast path for plain ASCII without quotes, backslashes or controls). */
function q(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

function argsBody(args: Args): string {
  let out = '';
  for (const k in args) {
    const v = args[k];
    out += `,${q(k)}:${typeof v === 'string' ? q(v) : typeof v === 'number' && Number.isFinite(v) ? String(v) : JSON.stringify(v)}`;
  }
  return out;
}

export class TraceWriter {
  readonly path: string;
  readonly pid: number;
  readonly tid: number;
  readonly hostname: string;
  readonly hhash: string;
  readonly metadata: boolean;
  private readonly gzip: boolean;
  private readonly memberBytes: number;
  private readonly level: number;
  private readonly metaIds: boolean;
  private readonly intHashes: boolean;
  private readonly stringNumbers: boolean;
  private readonly closeBracket: 'line' | 'no-newline' | 'none';
  private ended = false;
  private prefix: string | undefined;
  private fd: number;
  private buf: string[] = [];
  private bufLen = 0;
  private nextId = 1;
  /** Complete (`ph: "X"`) events written so far, start included. */
  completeEvents = 0;
  /** Records written so far (complete events and metadata). */
  records = 0;
  /** Lines written so far, `[` included. */
  lines = 0;
  private readonly stacks = new Map<number, Span[]>();
  private readonly fileHashes = new Map<string, string>();
  private readonly stringHashes = new Map<string, string>();

  constructor(opts: TraceWriterOptions) {
    this.path = opts.path;
    this.pid = opts.pid ?? 4242;
    this.tid = opts.tid ?? this.pid;
    this.hostname = opts.hostname ?? 'node01';
    this.metadata = opts.metadata ?? true;
    this.gzip = opts.path.endsWith('.gz');
    this.memberBytes = opts.memberBytes ?? 64 * 1024;
    this.level = opts.level ?? 1;
    this.metaIds = opts.metaIds ?? true;
    this.intHashes = opts.hashes === 'int';
    this.stringNumbers = opts.stringNumbers ?? false;
    this.closeBracket = opts.closeBracket ?? 'line';
    this.hhash = this.hash(this.hostname);
    mkdirSync(dirname(opts.path), { recursive: true });
    this.fd = openSync(opts.path, opts.append ? 'a' : 'w', 0o644);
    if (opts.prefix === undefined) this.raw('[');
    else this.prefix = opts.prefix;
  }

  /** Write one line verbatim (no validation: tests use it to plant broken lines). */
  raw(line: string): void {
    if (this.prefix !== undefined) {
      line = this.prefix + line;
      this.prefix = undefined;
    }
    this.buf.push(line, '\n');
    this.bufLen += line.length + 1;
    this.lines++;
    if (this.bufLen >= this.memberBytes) this.flush();
  }

  /** Write the buffered lines: one gzip member when compressing. */
  flush(): void {
    if (this.bufLen === 0 || this.fd < 0) return;
    const text = this.buf.join('');
    writeSync(this.fd, this.gzip ? gzipSync(text, { level: this.level }) : Buffer.from(text));
    this.buf = [];
    this.bufLen = 0;
  }

  close(): void {
    if (this.ended && this.closeBracket !== 'none' && this.fd >= 0) {
      this.flush();
      if (this.closeBracket === 'line') this.raw(']');
      else {
        this.buf.push(']');
        this.bufLen++;
        this.lines++;
      }
    }
    this.flush();
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** H(s) in this writer's layout: 16 hex digits, or their 64-bit value as an integer. */
  hash(s: string): string {
    const h = dftHash(s);
    return this.intHashes ? BigInt(`0x${h}`).toString() : h;
  }

  /** A hash as JSON: quoted hex, or a bare integer. */
  private hashJson(h: string): string {
    return this.intHashes ? h : `"${h}"`;
  }

  /** A number as this layout writes it. */
  private n(v: number): string {
    return this.stringNumbers ? `"${v}"` : String(v);
  }

  /** A metadata line (`ph: "M"`), with the next id unless `metaIds` is off. */
  meta(name: string, argName: string, argValue: string, tid = this.tid): void {
    const isHash = name === 'HH' || name === 'FH' || name === 'SH';
    const value = isHash ? this.hashJson(argValue) : q(argValue);
    const args = this.metadata ? `{"hhash":${this.hashJson(this.hhash)},"name":${q(argName)},"value":${value}}` : `{"name":${q(argName)},"value":${value}}`;
    const id = this.metaIds ? `"id":${this.n(this.nextId++)},` : '';
    this.records++;
    this.raw(`{${id}"name":${q(name)},"cat":"dftracer","pid":${this.n(this.pid)},"tid":${this.n(tid)},"ph":"M","args":${args}}`);
  }

  /** The header a tracer writes at init: HH, thread_name, FH(cwd), SH(cmd), SH(exec). */
  header(opts: { cwd?: string; cmd?: string; exec?: string } = {}): void {
    this.meta('HH', this.hostname, this.hhash);
    this.threadName(this.tid, 'main');
    this.process = { cwd: opts.cwd ?? '/work', cmd: opts.cmd ?? 'node;app.js', exec: opts.exec ?? 'app.js' };
    this.fileHash(this.process.cwd);
    this.stringHash(this.process.cmd);
    this.stringHash(this.process.exec);
  }

  /** What `header()` said about the process (the `start` event's hashes name the same). */
  private process = { cwd: '/work', cmd: 'node;app.js', exec: 'app.js' };

  /** Emit `FH` for `path` once; returns its hash. */
  fileHash(path: string): string {
    let h = this.fileHashes.get(path);
    if (h === undefined) {
      h = this.hash(path);
      this.fileHashes.set(path, h);
      this.meta('FH', path, h);
    }
    return h;
  }

  /** Emit `SH` for `s` once; returns its hash. */
  stringHash(s: string): string {
    let h = this.stringHashes.get(s);
    if (h === undefined) {
      h = this.hash(s);
      this.stringHashes.set(s, h);
      this.meta('SH', s, h);
    }
    return h;
  }

  threadName(tid: number, name: string): void {
    this.meta('thread_name', name, String(tid), tid);
  }

  processName(name: string): void {
    this.meta('process_name', name, name);
  }

  userMeta(key: string, value: string): void {
    this.meta('CM', key, value);
  }

  private stack(tid: number): Span[] {
    let s = this.stacks.get(tid);
    if (!s) this.stacks.set(tid, (s = []));
    return s;
  }

  /**
   * Enter a span (the id is taken now, as the tracer does at entry). It is written by `exit()`,
   * after its children. `parent` overrides the tid's own stack (async work on a lane).
   */
  begin(name: string, cat: string, ts: number, opts: { tid?: number; args?: Args; parent?: Span | null } = {}): Span {
    const tid = opts.tid ?? this.tid;
    const st = this.stack(tid);
    const parent = opts.parent !== undefined ? opts.parent : st[st.length - 1];
    const span: Span = {
      id: this.nextId++,
      name,
      cat,
      tid,
      ts,
      level: parent ? parent.level + 1 : 1,
      pIdx: parent ? parent.id : -1,
      ...(opts.args ? { args: opts.args } : {}),
    };
    st.push(span);
    return span;
  }

  /** Exit a span and write it. */
  exit(span: Span, te: number, args?: Args): void {
    const st = this.stack(span.tid);
    if (st[st.length - 1] === span) st.pop();
    else {
      const i = st.lastIndexOf(span);
      if (i >= 0) st.splice(i, 1);
    }
    this.writeComplete(span, te - span.ts, args ? { ...span.args, ...args } : span.args);
  }

  /** A leaf event: entered and exited at once (nested under the tid's open span, or `parent`). */
  complete(name: string, cat: string, ts: number, dur: number, opts: { tid?: number; args?: Args; parent?: Span | null } = {}): Span {
    const span = this.begin(name, cat, ts, opts);
    this.exit(span, ts + dur);
    return span;
  }

  /** Write a complete event line from explicit fields (ids managed by the caller). */
  writeComplete(span: Span, dur: number, args?: Args): void {
    const n = (v: number) => this.n(v);
    let line = `{"id":${n(span.id)},"name":${q(span.name)},"cat":${q(span.cat)},"pid":${n(this.pid)},"tid":${n(span.tid)},"ts":${n(span.ts)},"dur":${n(dur)},"ph":"X"`;
    if (this.metadata) line += `,"args":{"hhash":${this.hashJson(this.hhash)},"level":${n(span.level)},"p_idx":${n(span.pIdx)}${args ? this.argsText(args) : ''}}`;
    line += '}';
    this.completeEvents++;
    this.records++;
    this.raw(line);
  }

  /** Args in this layout: hash-valued keys (fhash, *_hash, cwd) as hashes, numbers maybe as strings. */
  private argsText(args: Args): string {
    if (!this.intHashes && !this.stringNumbers) return argsBody(args);
    let out = '';
    for (const k in args) {
      const v = args[k]!;
      const hashKey = k === 'fhash' || k === 'cwd' || k.endsWith('_hash');
      out += `,${q(k)}:${hashKey && typeof v === 'string' ? this.hashJson(v) : typeof v === 'number' && Number.isInteger(v) ? this.n(v) : argsBody({ x: v }).slice(5)}`;
    }
    return out;
  }

  /** Take the next id for a record the caller writes itself (`writeComplete`). */
  nextIdForTest(): number {
    return this.nextId++;
  }

  /** Take an id without writing anything (a tracer whose ids are not contiguous). */
  skipIds(n: number): void {
    this.nextId += n;
  }

  /** The `start` event (cat dftracer, dur 0). Call after `header()`. */
  start(ts: number): void {
    const args: Args = this.metadata
      ? {
          cmd_hash: this.stringHash(this.process.cmd),
          exec_hash: this.stringHash(this.process.exec),
          cwd: this.fileHash(this.process.cwd),
          version: '0.1.0',
          date: 'Mon Oct 20 04:22:50 2025',
          ppid: 1,
        }
      : {};
    this.complete('start', 'dftracer', ts, 0, { args, parent: null });
  }

  /** The `end` event; `num_events` counts every record before it (metadata and start included). */
  end(ts: number, plugins: string[] = ['posix'], numEvents = this.records): void {
    this.complete('end', 'dftracer', ts, 0, { args: { num_events: numEvents, plugins }, parent: null });
    this.ended = true;
  }
}
