/**
 * `dftracer validate`: checks traces against the E2 layout (DESIGN.md §2), streaming.
 *
 * Checked, with the line of each problem:
 * - layout: line 1 `[`, one JSON object per line, fields in the fixed order, value types;
 * - ids: unique per process (upstream numbers each process's events from 1, and its
 *   dftracer_merge keeps them); `p_idx` names an event of the same process whose interval
 *   encloses the child's, `level` is the parent's plus one;
 * - hashes: every `fhash`/`hhash`/`*_hash`/`cwd` value is defined by an FH/HH/SH metadata line
 *   (before or after it);
 * - lifecycle: `start` first, `end` last per process, `end.num_events` equal to the number of
 *   complete events before it; a trace without `end` is reported as unfinished (a warning);
 * - tracks: slices on one pid/tid are disjoint or properly nested (integer µs, touching is fine);
 *   events on a GPU device track (`args.device_track`) are disjoint on their tid, and their
 *   `launch_id` names an event of the trace (a warning if not);
 * - runs: a file may hold several traces appended one after another (a `[`, or a `start` after
 *   an earlier run's records, or, in upstream layouts, ids that start again): a warning, and each
 *   run's ids, parents, tracks and lifecycle are checked on their own;
 * - gzip: truncated or corrupt members.
 *
 * Pipeline: decompression (libuv thread pool) → chunks of whole lines → `LineScanner` (scan-pool.ts: worker
 * threads, in parallel) → compact records → `SemanticChecker` (main thread, in file order).
 * Memory is bounded: the checker keeps open parents, recent events, hash tables, an id bitset and
 * per-track stacks of top-level slices, not the events.
 */
import { availableParallelism } from 'node:os';
import { EntityCheck, type EntityHits } from './entity-check.js';
import { IdSet } from './id-set.js';
import { TraceReader } from '../read/lines.js';
import { ScanPool } from './scan-pool.js';
import { FIELD, FLAG_CLOSE, FLAG_META, FLAG_OPEN, NS_NAMES, QUIRK_TEXT, RECORD_SIZE, type ChunkResult, type ProblemGroup, type ProblemKind } from './line-scanner.js';
import { grown } from '../typed-arrays.js';

export interface FileValidation {
  file: string;
  /** Lines read, `[` included. */
  lines: number;
  /** Complete (`ph: "X"`) events. */
  events: number;
  /** Metadata (`ph: "M"`) records. */
  metadata: number;
  /** On-disk and decompressed sizes. */
  bytesIn: number;
  bytesOut: number;
  pids: number;
  tracks: number;
  /** Every process in the file wrote its `end` event (in every run). */
  finished: boolean;
  /** Traces appended one after another in the file (1 for a file as a tracer writes it). */
  runs: number;
  problems: ProblemGroup[];
  /**
   * Findings that are genuine in upstream DFTracer traces but worth knowing (an unfinished trace,
   * an upstream layout, fork-duplicated ids, parents still open at finalize); errors with `strict`.
   */
  warnings: string[];
}

export interface ValidateOptions {
  /** Occurrences kept per problem kind and file (default 3). */
  examplesPerKind?: number;
  /** Worker threads for scanning (default `defaultThreads()`, at most one per core; 0 scans on the main thread). */
  threads?: number;
  /** Called with on-disk bytes read so far, per file. */
  onProgress?: (file: string, bytesIn: number) => void;
  /** Warnings count as problems (kind `strict`): the file must be exactly the layout dftracer.js writes. */
  strict?: boolean;
}

/** Per pid/tid: a stack of the maximal slices seen so far, sorted and disjoint. */
class Track {
  n = 0;
  s = new Float64Array(64);
  e = new Float64Array(64);
  id = new Float64Array(64);
  line = new Float64Array(64);
  constructor(
    readonly pid: number,
    readonly tid: number,
  ) {}
  /** Make room for one more slice. */
  grow(): void {
    const cap = this.s.length;
    if (cap >= MAX_TRACK_STACK) {
      // Forget the oldest half: only a slice reaching back past them could be missed.
      const h = cap >> 1;
      this.s.copyWithin(0, h);
      this.e.copyWithin(0, h);
      this.id.copyWithin(0, h);
      this.line.copyWithin(0, h);
      this.n -= h;
      return;
    }
    this.s = grown(this.s, cap * 2);
    this.e = grown(this.e, cap * 2);
    this.id = grown(this.id, cap * 2);
    this.line = grown(this.line, cap * 2);
  }
}
const MAX_TRACK_STACK = 1 << 16;

/**
 * One process in the current run. Ids and parents are its own: upstream DFTracer numbers each
 * process's events from 1, and its dftracer_merge keeps those ids, so they repeat across processes.
 */
interface ProcState {
  events: number;
  /** Metadata records of this pid before its `end`. */
  meta: number;
  /** Metadata records of this pid after its `end`: the header of a run appended next. */
  metaAfterEnd: number;
  /** Line of its first complete event when that was not `start` (0: none such). */
  firstNotStart: number;
  startSeen: boolean;
  endLine: number;
  afterEndReported: boolean;
  ids: IdSet;
  /** Its first id in the run: an upstream id at or below it starts the next run. */
  firstId: number;
  /** Parents named by p_idx before they were written (parents are usually written after their children). */
  pending: Map<number, Pending>;
  maxPendingId: number;
  lastPendingId: number;
  lastPending: Pending | undefined;
  /** Device-track `launch_id`s not yet seen as an id of this process (resolved at the end of the run). */
  launches: Map<number, number>;
}

interface Pending {
  minTs: number;
  maxEnd: number;
  level: number;
  line: number;
  childId: number;
  /** The smallest id among its children: a parent entered before them has a smaller one. */
  minChildId: number;
  levelMismatch: boolean;
}

/** A warning kind, counted per file with its first line. */
interface Note {
  count: number;
  line: number;
  text: string;
}

const CACHE_BITS = 16;
const CACHE_MASK = (1 << CACHE_BITS) - 1;

/** The order-dependent checks, fed with scanned chunks in file order. */
export class SemanticChecker {
  readonly file: string;
  private readonly maxExamples: number;
  private readonly groups = new Map<ProblemKind, ProblemGroup>();
  lines = 0;
  events = 0;
  metadata = 0;
  notTrace = false;

  private readonly cacheId = new Float64Array(1 << CACHE_BITS).fill(-1);
  private readonly cacheTs = new Float64Array(1 << CACHE_BITS);
  private readonly cacheEnd = new Float64Array(1 << CACHE_BITS);
  private readonly cacheLevel = new Float64Array(1 << CACHE_BITS);
  private readonly cacheLine = new Float64Array(1 << CACHE_BITS);
  /** pid and tid of the recent ids: a duplicate on another track is a fork child's (a warning). */
  private readonly cachePid = new Float64Array(1 << CACHE_BITS);
  private readonly cacheTid = new Float64Array(1 << CACHE_BITS);
  private readonly notes = new Map<string, Note>();

  private readonly defined: Array<Set<string>> = [new Set(), new Set(), new Set()];
  private readonly refs: Array<Map<string, number>> = [new Map(), new Map(), new Map()];

  private readonly tracks = new Map<number, Map<number, Track>>();
  private lastTrack: Track | null = null;
  private readonly procs = new Map<number, ProcState>();
  private lastProc: ProcState | null = null;
  private lastPid = -1;

  /** Runs (traces appended one after another) so far, and the current run's record count. */
  private runs = 1;
  private runRecords = 0;
  /** Line of a `]` not yet followed by anything. */
  private closeLine = 0;
  /** The dftracer.js layout (a `process_name` header record): its ids are unique by construction. */
  private ours = false;
  private anyEvents = false;
  private readonly pidsWithEvents = new Set<number>();
  private readonly trackKeys = new Set<string>();
  /** Per run: pids without `end` (and spans still open), for the warning. */
  private readonly unfinished: Array<{ run: number; pids: number[]; open: number }> = [];
  /** GPU device tracks: the last kernel on each pid/tid (they run one after another). */
  private readonly devices = new Map<string, { end: number; id: number; line: number }>();

  constructor(file: string, opts: { examplesPerKind?: number } = {}) {
    this.file = file;
    this.maxExamples = opts.examplesPerKind ?? 3;
  }

  /** A warning of kind `key` (counted; the first line and text kept). */
  note(key: string, line: number, text: string, count = 1): void {
    const n = this.notes.get(key);
    if (n) n.count += count;
    else this.notes.set(key, { count, line, text });
  }

  problem(kind: ProblemKind, line: number, message: string | (() => string), count = 1): void {
    let g = this.groups.get(kind);
    if (!g) this.groups.set(kind, (g = { kind, count: 0, examples: [] }));
    g.count += count;
    if (g.examples.length < this.maxExamples) g.examples.push({ line, message: typeof message === 'string' ? message : message() });
  }

  /** Take the next chunk's scan (chunks must come in file order). */
  consume(r: ChunkResult): void {
    const base = this.lines;
    for (const g of r.problems) {
      let dst = this.groups.get(g.kind);
      if (!dst) this.groups.set(g.kind, (dst = { kind: g.kind, count: 0, examples: [] }));
      dst.count += g.count;
      for (const ex of g.examples) if (dst.examples.length < this.maxExamples) dst.examples.push({ line: ex.line + base, message: ex.message });
    }
    if (r.notTrace) this.notTrace = true;
    for (const [kind, count, line] of r.quirks) this.note(kind, base + line, QUIRK_TEXT[kind], count);
    this.metadata += r.metadata;
    for (const [ns, h] of r.defs) this.defined[ns]!.add(h);
    for (const [ns, h, line] of r.refs) {
      const m = this.refs[ns]!;
      if (!m.has(h)) m.set(h, base + line);
    }
    const rec = r.records;
    for (let i = 0, o = 0; i < r.recordCount; i++, o += RECORD_SIZE) this.complete(rec, o, base);
    this.lines = base + r.lines;
  }

  /** A metadata record: its id must be unique; it counts for its pid's `end.num_events`. */
  private metaRecord(r: Float64Array, o: number, base: number): void {
    const lineNo = base + r[o + FIELD.LINE]!;
    const id = r[o + FIELD.ID]!;
    const pid = r[o + FIELD.PID]!;
    const tid = r[o + FIELD.TID]!;
    if (r[o + FIELD.NUM_EVENTS] === 1) this.ours = true;
    if (id >= 0 && this.proc(pid).ids.add(id)) this.duplicate(id, pid, tid, lineNo);
    const proc = this.proc(pid);
    if (proc.firstId < 0 && id >= 0) proc.firstId = id;
    this.runRecords++;
    if (proc.endLine === 0) proc.meta++;
    else proc.metaAfterEnd++;
    if (id < 0) return;
    // in the recent-ids cache as an event that encloses anything (a p_idx never names metadata)
    const slot = id & CACHE_MASK;
    this.cacheId[slot] = id;
    this.cacheTs[slot] = -Infinity;
    this.cacheEnd[slot] = Infinity;
    this.cacheLevel[slot] = -1;
    this.cacheLine[slot] = lineNo;
    this.cachePid[slot] = pid;
    this.cacheTid[slot] = tid;
  }

  private proc(pid: number): ProcState {
    let proc = this.lastProc;
    if (proc === null || this.lastPid !== pid) {
      proc = this.procs.get(pid) ?? null;
      if (!proc) {
        proc = { events: 0, meta: 0, metaAfterEnd: 0, firstNotStart: 0, startSeen: false, endLine: 0, afterEndReported: false, ids: new IdSet(), firstId: -1, pending: new Map(), maxPendingId: -1, lastPendingId: -1, lastPending: undefined, launches: new Map() };
        this.procs.set(pid, proc);
      }
      this.lastProc = proc;
      this.lastPid = pid;
    }
    return proc;
  }

  /**
   * An id its process used before (ids are per process: see `ProcState`): on another thread,
   * recently and past the process's first id, it is a fork child that went on with its parent's
   * counter (genuine in upstream traces: a warning). Else, in an upstream layout, ids start again:
   * another run's trace appended to the file (a warning; the record starts the next run). In the
   * dftracer.js layout, an error.
   */
  private duplicate(id: number, pid: number, tid: number, lineNo: number): void {
    const slot = id & CACHE_MASK;
    if (this.cacheId[slot] === id && this.cachePid[slot] === pid && this.cacheTid[slot] !== tid && id > this.proc(pid).firstId) {
      this.note('fork-id', lineNo, 'ids used twice by different threads of one process (a fork child writing with its parent\'s counter)');
    } else if (!this.ours) {
      this.newRun(lineNo, 'restart');
      this.proc(pid).ids.add(id);
    } else this.problem('duplicate-id', lineNo, () => `id ${id} is used twice${this.procs.size > 1 ? ` by pid ${pid}` : ''}`);
  }

  /** The records from `lineNo` on are another run: check the current one's loose ends, then forget it. */
  private newRun(lineNo: number, why: 'restart' | 'bracket' | 'start', carryMeta?: { pid: number; meta: number }): void {
    this.closeRun(false);
    this.cacheId.fill(-1);
    this.tracks.clear();
    this.lastTrack = null;
    this.procs.clear();
    this.lastProc = null;
    this.lastPid = -1;
    this.devices.clear();
    this.runRecords = 0;
    this.runs++;
    if (carryMeta) this.proc(carryMeta.pid).meta = carryMeta.meta;
    this.note(
      'appended',
      lineNo,
      why === 'restart'
        ? 'ids start again: traces of several runs appended in one file, each run checked on its own'
        : `traces of several runs appended in one file (a ${why === 'start' ? '"start" event' : '"[" or "]"'} after an earlier run's records), each run checked on its own`,
    );
  }

  /** The end of a run: parents never written, processes without `end`, launches of no event. */
  private closeRun(last: boolean, gzipError = false): void {
    const unfinishedPids: number[] = [];
    for (const [pid, p] of this.procs) {
      if (p.events === 0 && p.endLine === 0) continue; // metadata only
      this.anyEvents = true;
      this.pidsWithEvents.add(pid);
      if (p.endLine === 0) unfinishedPids.push(pid);
    }
    for (const [pid, m] of this.tracks) for (const tid of m.keys()) this.trackKeys.add(`${pid}/${tid}`);
    let open = 0;
    for (const [pid, p] of this.procs) {
      for (const [pidx, pend] of p.pending) {
        if (p.ids.has(pidx)) continue; // written earlier, beyond the recent-events window
        if (unfinishedPids.length > 0 || (last && gzipError)) open++;
        // a parent is entered (takes its id) before its children: one that never came was still
        // open when the process finalized (genuine upstream); one with a larger id cannot be
        else if (pend.minChildId > pidx) this.note('open-parent', pend.line, 'p_idx names a parent that was still open at finalize (its event was never written)');
        else this.problem('parent', pend.line, `p_idx ${pidx} names no event of pid ${pid} in the file`);
      }
    }
    for (const [pid, p] of this.procs) {
      if (!p.startSeen && p.firstNotStart > 0) this.note('no-start', p.firstNotStart, `no "start" event for pid ${pid} (layout before DFTracer 1.0)`);
    }
    for (const p of this.procs.values()) {
      for (const [launch, line] of p.launches) {
        if (!p.ids.has(launch)) this.note('launch-id', line, `a device-track event's launch_id names no event of its run (e.g. ${launch})`);
      }
    }
    if (unfinishedPids.length > 0 && !(last && gzipError)) this.unfinished.push({ run: this.runs, pids: unfinishedPids, open });
  }

  private complete(r: Float64Array, o: number, base: number): void {
    const flags = r[o + FIELD.FLAGS]!;
    if (flags === FLAG_OPEN || flags === FLAG_CLOSE) {
      // a `[` after records, or anything after a `]`, starts the next run
      if (flags === FLAG_OPEN && this.runRecords > 0) this.newRun(base + r[o + FIELD.LINE]!, 'bracket');
      this.closeLine = flags === FLAG_CLOSE ? base + r[o + FIELD.LINE]! : 0;
      return;
    }
    if (this.closeLine > 0) {
      if (this.runRecords > 0) this.newRun(base + r[o + FIELD.LINE]!, 'bracket');
      this.closeLine = 0;
    }
    if (flags === FLAG_META) {
      this.metaRecord(r, o, base);
      return;
    }
    this.events++;
    const lineNo = base + r[o + FIELD.LINE]!;
    const id = r[o + FIELD.ID]!;
    const pid = r[o + FIELD.PID]!;
    const tid = r[o + FIELD.TID]!;
    const ts = r[o + FIELD.TS]!;
    const te = ts + r[o + FIELD.DUR]!;
    const level = r[o + FIELD.LEVEL]!;
    const pIdx = r[o + FIELD.P_IDX]!;
    const isStart = flags === 1;
    const isEnd = flags === 2;

    // a `start` after its process's `end` (or, upstream, after its events) starts the next run
    if (isStart && this.runRecords > 0) {
      const p = this.procs.get(pid);
      if (p && (p.endLine > 0 || (!this.ours && (p.startSeen || p.events > 0)))) this.newRun(lineNo, 'start', { pid, meta: p.metaAfterEnd });
    }

    // unique ids, per process
    if (id >= 0 && this.proc(pid).ids.add(id)) this.duplicate(id, pid, tid, lineNo);
    const proc = this.proc(pid);
    if (proc.firstId < 0) proc.firstId = id;
    this.runRecords++;

    // lifecycle, per process
    if (proc.endLine > 0 && !proc.afterEndReported) {
      proc.afterEndReported = true;
      const endLine = proc.endLine;
      this.problem('lifecycle', lineNo, () => `event after the "end" event of pid ${pid} (line ${endLine})`);
    }
    // older layouts have no start event (a warning at the end); one that comes late is an error
    if (proc.events === 0 && !isStart && !proc.startSeen) proc.firstNotStart = lineNo;
    if (isStart) {
      if (proc.startSeen) this.problem('lifecycle', lineNo, () => `second "start" event for pid ${pid}`);
      else if (proc.firstNotStart > 0) {
        const first = proc.firstNotStart;
        this.problem('lifecycle', lineNo, () => `"start" of pid ${pid} comes after other events (the first on line ${first})`);
      }
      proc.startSeen = true;
    }
    if (isEnd) {
      proc.endLine = lineNo;
      const n = r[o + FIELD.NUM_EVENTS]!;
      const have = proc.events;
      const records = have + proc.meta;
      // upstream counts every record before `end` (metadata included); dftracer.js before 0.2
      // counted complete events only: both are accepted
      if (n >= 0 && n !== records) {
        if (n === have) this.note('num-events-complete', lineNo, 'end.num_events counts complete events only, not metadata records (DFTracer late 2025; dftracer.js before this layout)');
        else
          this.problem('num-events', lineNo, () => `end.num_events is ${n} but ${records} records (${have} complete events, ${proc.meta} metadata) precede it${this.procs.size > 1 ? ` for pid ${pid}` : ''}`);
      }
    } else proc.events++;

    // nesting: parents are usually written after their children. Pending parents have smaller
    // ids than the children that wait for them, so most events need no lookup at all.
    if (proc.pending.size > 0 && id <= proc.maxPendingId) {
      const pend = proc.pending.get(id);
      if (pend !== undefined) {
        proc.pending.delete(id);
        if (proc.lastPendingId === id) proc.lastPendingId = -1;
        if (pend.minTs < ts || pend.maxEnd > te) {
          this.problem('nesting', pend.line, () => `event ${pend.childId} is not within its parent ${id} [${ts}, ${te}] (line ${lineNo})`);
        }
        if (level >= 0 && (pend.levelMismatch || (pend.level >= 0 && pend.level !== level + 1))) {
          this.problem('level', pend.line, () => `level ${pend.level} under parent ${id} of level ${level} (line ${lineNo}); expected ${level + 1}`);
        }
      }
    }
    if (pIdx >= 0) {
      const slot = pIdx & CACHE_MASK;
      if (this.cacheId[slot] === pIdx && this.cachePid[slot] === pid) {
        const pts = this.cacheTs[slot]!;
        const pte = this.cacheEnd[slot]!;
        const pl = this.cacheLevel[slot]!;
        const pline = this.cacheLine[slot]!;
        if (ts < pts || te > pte) this.problem('nesting', lineNo, () => `event ${id} is not within its parent ${pIdx} [${pts}, ${pte}] (line ${pline})`);
        if (level >= 0 && pl >= 0 && level !== pl + 1) this.problem('level', lineNo, () => `level ${level} under parent ${pIdx} of level ${pl}; expected ${pl + 1}`);
      } else {
        // siblings come in a row: remember the last pending parent
        const q = proc.lastPendingId === pIdx ? proc.lastPending : proc.pending.get(pIdx);
        if (q === undefined) {
          const p: Pending = { minTs: ts, maxEnd: te, level, line: lineNo, childId: id, minChildId: id, levelMismatch: false };
          proc.pending.set(pIdx, p);
          proc.lastPending = p;
          proc.lastPendingId = pIdx;
          if (pIdx > proc.maxPendingId) proc.maxPendingId = pIdx;
        } else {
          proc.lastPending = q;
          proc.lastPendingId = pIdx;
          if (ts < q.minTs) q.minTs = ts;
          if (id < q.minChildId) q.minChildId = id;
          if (te > q.maxEnd) {
            q.maxEnd = te;
            q.line = lineNo;
            q.childId = id;
          }
          if (level !== q.level) q.levelMismatch = true;
        }
      }
    } else if (pIdx === -1 && level > 1) {
      this.problem('level', lineNo, () => `level ${level} but p_idx is -1 (a top-level event has level 1)`);
    }
    const slot = id & CACHE_MASK;
    this.cacheId[slot] = id;
    this.cacheTs[slot] = ts;
    this.cacheEnd[slot] = te;
    this.cacheLevel[slot] = level;
    this.cacheLine[slot] = lineNo;
    this.cachePid[slot] = pid;
    this.cacheTid[slot] = tid;

    // no partial overlaps on one pid/tid track
    let tr = this.lastTrack;
    if (tr === null || tr.tid !== tid || tr.pid !== pid) tr = this.lastTrack = this.track(pid, tid);
    if (r[o + FIELD.DEVICE_TRACK] === 1) this.deviceEvent(pid, tid, ts, te, id, pIdx, level, r[o + FIELD.LAUNCH_ID]!, lineNo);
    else this.place(tr, ts, te, id, lineNo);
  }

  /**
   * A kernel on a GPU device track: top-level on its own tid, after the previous kernel there (a
   * queue runs them one at a time, written in execution order); its launch_id names an event.
   */
  private deviceEvent(pid: number, tid: number, ts: number, te: number, id: number, pIdx: number, level: number, launch: number, lineNo: number): void {
    if (level !== 1 || pIdx !== -1) this.problem('level', lineNo, () => `device-track event ${id} has level ${level} and p_idx ${pIdx}; a device track's kernels are top-level (level 1, p_idx -1)`);
    const key = `${pid}/${tid}`;
    const prev = this.devices.get(key);
    if (prev && ts < prev.end) {
      this.problem('overlap', lineNo, () => `device-track event ${id} [${ts}, ${te}] overlaps kernel ${prev.id} (line ${prev.line}) on pid ${pid} tid ${tid}: a device runs its kernels one after another`);
    }
    if (!prev || te >= prev.end) this.devices.set(key, { end: te, id, line: lineNo });
    if (launch < 0) this.note('launch-missing', lineNo, 'device-track events without a launch_id');
    else {
      const p = this.proc(pid);
      if (!p.ids.has(launch) && !p.launches.has(launch)) p.launches.set(launch, lineNo);
    }
  }

  private track(pid: number, tid: number): Track {
    let m = this.tracks.get(pid);
    if (!m) this.tracks.set(pid, (m = new Map()));
    let t = m.get(tid);
    if (!t) m.set(tid, (t = new Track(pid, tid)));
    return t;
  }

  /** Insert [s, e] into the track's stack of maximal slices; report a partial overlap. */
  private place(t: Track, s: number, e: number, id: number, lineNo: number): void {
    let n = t.n;
    const S = t.s;
    const E = t.e;
    if (n === 0 || E[n - 1]! <= s) {
      // after everything so far (the common case: events are written at exit)
    } else if (E[n - 1]! <= e) {
      // ends last: it must contain every slice it touches
      while (n > 0 && E[n - 1]! > s) {
        if (S[n - 1]! < s) {
          this.overlap(t, n - 1, s, e, id, lineNo);
          s = S[n - 1]!;
        }
        n--;
      }
    } else {
      // out of order: find the slices it touches
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (E[m]! > s) hi = m;
        else lo = m + 1;
      }
      const j = lo; // first slice ending after s
      if (j < n && S[j]! <= s && e <= E[j]!) return; // nested inside slice j: nothing changes
      let k = j;
      while (k < n && S[k]! < e) {
        if (S[k]! < s || E[k]! > e) {
          this.overlap(t, k, s, e, id, lineNo);
          if (S[k]! < s) s = S[k]!;
          if (E[k]! > e) e = E[k]!;
        }
        k++;
      }
      // replace slices [j, k) by [s, e]
      if (k === j && n === S.length) {
        t.grow();
        this.place(t, s, e, id, lineNo);
        return;
      }
      const shift = 1 - (k - j);
      t.s.copyWithin(j + 1, k, n);
      t.e.copyWithin(j + 1, k, n);
      t.id.copyWithin(j + 1, k, n);
      t.line.copyWithin(j + 1, k, n);
      t.n = n + shift;
      t.s[j] = s;
      t.e[j] = e;
      t.id[j] = id;
      t.line[j] = lineNo;
      return;
    }
    t.n = n;
    if (n === t.s.length) {
      t.grow();
      n = t.n;
    }
    t.s[n] = s;
    t.e[n] = e;
    t.id[n] = id;
    t.line[n] = lineNo;
    t.n = n + 1;
  }

  private overlap(t: Track, k: number, s: number, e: number, id: number, lineNo: number): void {
    const os = t.s[k]!;
    const oe = t.e[k]!;
    const oid = t.id[k]!;
    const oline = t.line[k]!;
    this.problem('overlap', lineNo, () => `event ${id} [${s}, ${e}] partially overlaps event ${oid} [${os}, ${oe}] (line ${oline}) on pid ${t.pid} tid ${t.tid}`);
  }

  /** Resolve hashes and parents, and summarise. */
  finish(extra: { bytesIn: number; bytesOut: number; unterminated: boolean; closeNoNewline?: boolean; gzipError?: { kind: string; message: string }; strict?: boolean }): FileValidation {
    const warnings: string[] = [];
    if (extra.closeNoNewline && !this.notTrace) this.note('close-no-newline', this.lines, QUIRK_TEXT['close-no-newline']);
    else if (extra.unterminated && !this.notTrace) this.problem('layout', this.lines, 'the last line has no newline (file cut short?)');
    if (extra.gzipError) this.problem('gzip', this.lines + 1, extra.gzipError.message);
    if (this.lines === 0 && !extra.gzipError) {
      this.problem('not-trace', 1, 'empty file: not a DFTracer trace');
      this.notTrace = true;
    }
    let finished = false;
    if (!this.notTrace) {
      for (let ns = 0; ns < 3; ns++) {
        const def = this.defined[ns]!;
        for (const [h, line] of this.refs[ns]!) {
          if (def.has(h)) continue;
          // integer hashes are upstream's 2024 layout, where a record may be missing: a warning
          if (h.startsWith('#')) this.note(`hash-${ns}`, line, `integer hashes not defined by any ${NS_NAMES[ns]} metadata line (e.g. ${h.slice(1)})`);
          else this.problem('hash', line, `hash ${h} is not defined by any ${NS_NAMES[ns]} metadata line`);
        }
      }
      this.closeRun(true, extra.gzipError !== undefined);
      finished = this.anyEvents && this.unfinished.length === 0 && !extra.gzipError;
      if (this.unfinished.length > 0) {
        const open = this.unfinished.reduce((a, u) => a + u.open, 0);
        const pids = this.runs > 1 ? this.unfinished.map((u) => `${u.pids.join(', ')} (run ${u.run} of ${this.runs})`).join(', ') : this.unfinished[0]!.pids.join(', ');
        warnings.push(`unfinished: no "end" event for pid ${pids} (killed, or still running)` + (open > 0 ? `; ${open} span${open > 1 ? 's were' : ' was'} still open` : ''));
      }
    }
    const nUnfinished = warnings.length;
    const lineOf = (n: Note) => (n.count > 1 ? `${n.count} times, first on line ${n.line}` : `line ${n.line}`);
    for (const n of this.notes.values()) warnings.push(`${n.text} (${lineOf(n)})`);
    if (extra.strict) {
      // warnings are errors: each at its first line (an unfinished trace at its last)
      const lines = [...warnings.slice(0, nUnfinished).map(() => this.lines), ...[...this.notes.values()].map((n) => n.line)];
      warnings.forEach((w, i) => this.problem('strict', lines[i]!, w));
    }
    return {
      file: this.file,
      lines: this.lines,
      events: this.events,
      metadata: this.metadata,
      bytesIn: extra.bytesIn,
      bytesOut: extra.bytesOut,
      pids: this.pidsWithEvents.size,
      tracks: this.trackKeys.size,
      finished,
      runs: this.runs,
      problems: [...this.groups.values()],
      warnings,
    };
  }
}

/** Validate one file, streaming. Never throws for bad content; throws for unreadable files. */
export async function validateFile(file: string, pool: ScanPool, opts: ValidateOptions = {}): Promise<FileValidation> {
  const checker = new SemanticChecker(file, opts);
  const reader = new TraceReader(file, opts.onProgress ? (n) => opts.onProgress!(file, n) : undefined);
  const inflight: Array<Promise<ChunkResult>> = [];
  let first = true;
  let carry: Uint8Array | null = null;
  // DFTracer 2.2 provenance: entity ids named by relations, per chunk, in the chunks' order
  const entities = new EntityCheck();
  const entityHits: EntityHits[] = [];
  let lineBase = 0;
  const consume = (r: ChunkResult) => {
    entities.take(entityHits.shift()!, lineBase);
    lineBase += r.lines;
    checker.consume(r);
  };
  const submit = (buf: Uint8Array) => {
    entityHits.push(entities.scan(buf));
    inflight.push(pool.scan(buf, first));
    first = false;
  };
  for await (const chunk of reader.chunks()) {
    // cut at the last newline; the tail waits for the next chunk
    const last = chunk.lastIndexOf(10);
    if (last < 0) {
      carry = concat(null, carry, chunk, 0, chunk.length);
      continue;
    }
    submit(concat(pool, carry, chunk, 0, last + 1));
    carry = last + 1 < chunk.length ? concat(null, null, chunk, last + 1, chunk.length) : null;
    while (inflight.length >= pool.depth) {
      consume(await inflight.shift()!);
      if (checker.notTrace) break;
    }
    if (checker.notTrace) break;
  }
  let unterminated = false;
  let closeNoNewline = false;
  if (!checker.notTrace && carry && carry.length > 0 && !reader.outcome.gzipError) {
    // an unterminated last line is checked too (and reported as cut short), but for a closing
    // `]` (DFTracer 2024 wrote it without a newline)
    unterminated = true;
    closeNoNewline = new TextDecoder().decode(carry).trim() === ']';
    submit(concat(null, carry, new Uint8Array([10]), 0, 1));
  }
  while (inflight.length > 0) {
    const r = await inflight.shift()!;
    if (!checker.notTrace) consume(r);
  }
  const dangling = entities.undefinedRefs();
  if (dangling.length > 0 && !checker.notTrace) {
    checker.note('entity-ref', dangling[0]![1], `relations name entities no EH record defines (e.g. ${dangling[0]![0]})`, dangling.length);
  }
  const out = reader.outcome;
  return checker.finish({ bytesIn: out.bytesIn, bytesOut: out.bytesOut, unterminated, closeNoNewline, strict: opts.strict === true, ...(out.gzipError ? { gzipError: out.gzipError } : {}) });
}

/** `a` followed by `b[s, e)`, in a buffer of its own (transferable to a worker). */
function concat(pool: ScanPool | null, a: Uint8Array | null, b: Uint8Array, s: number, e: number): Uint8Array {
  const al = a ? a.length : 0;
  const n = al + (e - s);
  const out = pool ? pool.buffer(n) : new Uint8Array(new ArrayBuffer(n));
  if (a) out.set(a, 0);
  out.set(b.subarray(s, e), al);
  return out;
}

/**
 * Scanning workers by default: none on one or two cores, where decompression and the main thread
 * already keep both busy (measured: workers made it slower there), else one per remaining core.
 */
export function defaultThreads(): number {
  const cores = availableParallelism();
  return cores <= 2 ? 0 : Math.min(cores - 1, 8);
}

export interface ValidationReport {
  files: FileValidation[];
  /** Total complete events. */
  events: number;
  /** Total metadata records. */
  metadata: number;
  /** Total warnings (kinds per file). */
  warnings: number;
  problems: number;
  seconds: number;
}

/** Validate files one after another, scanning each in parallel chunks. */
export async function validateFiles(files: string[], opts: ValidateOptions = {}): Promise<ValidationReport> {
  const t0 = performance.now();
  // workers beyond the cores only cost start-up (999 of them took 30 s on a 29-event file)
  const threads = Math.min(opts.threads ?? defaultThreads(), availableParallelism());
  const pool = new ScanPool(threads, opts.examplesPerKind ?? 3);
  const results: FileValidation[] = [];
  try {
    for (const f of files) results.push(await validateFile(f, pool, opts));
  } finally {
    await pool.close();
  }
  let events = 0;
  let metadata = 0;
  let warnings = 0;
  let problems = 0;
  for (const r of results) {
    events += r.events;
    metadata += r.metadata;
    warnings += r.warnings.length;
    for (const g of r.problems) problems += g.count;
  }
  return { files: results, events, metadata, warnings, problems, seconds: (performance.now() - t0) / 1000 };
}
