import { AsyncLocalStorage } from 'node:async_hooks';
import { isAbsolute, resolve } from 'node:path';
import { nowUs, stampUs } from './clock.js';
import { underPrefix } from '../config/data-dirs.js';
import { writeDiagnostic } from '../writer/diagnostics.js';
import { EventBuffer, MAX_SHAPE_KEYS } from './event-buffer.js';
import { Interner } from './interner.js';
import { metadataLine } from '../format/metadata-line.js';
import { safeJson } from '../format/safe-json.js';
import { type FormatContext } from '../format/format-events.js';
import { BatchEncoder, threadDeflate } from '../gzip/index.js';
import { HashTable, dftHash } from './hash.js';
import { argsHead } from '../format/line-format.js';
import { COUNT_SLOT, ID_BLOCK, ID_SLOT, type TraceFile } from '../writer/trace-file.js';
import { cleanTime, isCleanTime } from './times.js';
import { SyncStack } from './sync-stack.js';
import { grown } from './typed-arrays.js';
import { WriterThread } from '../writer/writer-thread.js';
import { counterLine, type CounterValues, type CounterWarn } from '../counters/counter-line.js';
import { ThreadCounters } from '../counters/thread-counters.js';
import { Folder } from './fold.js';
import type { ArgValue, Args, DFTracerConfig, EnterOptions, EventShape, LogLevel, Span, Tracer } from '../types.js';

/** A span as the tracer keeps it: where it is written (tid) and where it sits on the sync stack. */
export interface SpanState extends Span {
  /** Set when a pending span begins (beginPending). */
  id: number;
  level: number;
  parentId: number;
  start: number;
  async: boolean;
  tid: number;
  /** 1-based index on the sync stack, 0 for async spans. */
  depth: number;
  lane: number;
  /** Opened by start()/using: may be stopped out of call order. */
  readonly region: boolean;
  open: boolean;
  /**
   * The async context this span was made the context over (runIn, enterContext): what a
   * continuation of that context nests under once this span is closed, or while it is pending.
   */
  outer: SpanState | undefined;
  /** A region that stands in for this span as the parent while it is open (handOver). */
  inner: SpanState | undefined;
  /** A loop body's block (iter): closed at the next item, so no parent of raw async spans. */
  loop: boolean;
}

export interface ThreadIdentity {
  readonly pid: number;
  /** The tid of this thread's own track. */
  readonly tid: number;
  readonly threadName: string;
  readonly hostname: string;
}

const LOG_ORDER: Record<LogLevel, number> = { ERROR: 0, WARN: 1, INFO: 2, DEBUG: 3 };
/** Ids used of a thread's first block (see nextId). */
const FIRST_IDS = 64;
/**
 * Events in a thread's first batch. The record path's flush is then first taken early, while V8
 * still runs it unoptimized and records how; a full first batch would first take it in optimized
 * code compiled without it, which V8 would throw away there.
 */
const FIRST_BATCH = 256;
/** Int32 slots per event shape: kind, key count, keys. */
const SHAPE_SLOTS = 2 + MAX_SHAPE_KEYS;
/** Bytes of formatted output an event takes on average; sizes the buffer from WRITE_BUFFER_SIZE. */
const BYTES_PER_EVENT = 192;
/** Named tracks (Tracer.track) take tids from here up within a thread's block of 10000. */
const TRACK_BASE = 9000;
/** The counters' next sample time while none run: never. */
const NO_COUNTERS = new Float64Array([Infinity]);

/**
 * The tracer of one thread. All threads of a process write into the same TraceFile; each has its
 * own buffer, nesting state and lanes.
 */
export class ThreadTracer implements Tracer {
  readonly interner: Interner;
  readonly hostHash: string;
  active = true;
  /** Events that arrived after finalize or after the file failed: counted, never written. */
  dropped = 0;
  /** Events this thread has handed to the file. */
  written = 0;
  truncated = 0;
  private buf: EventBuffer;
  /** Per shape (Tracer.shape): its kind, its number of keys, its key ids (SHAPE_SLOTS apart). */
  private shapes = new Int32Array(16 * SHAPE_SLOTS);
  private shapeCount = 0;
  private readonly shapeIds = new Map<string, EventShape>();
  /** Per shape, its arg names (for folding its events). */
  private readonly shapeNames: (readonly string[])[] = [];
  /** Folds high-rate events per interval (DFTRACER_ENABLE_AGGREGATION), else null. */
  private readonly folder: Folder | null;
  private readonly capacity: number;
  private readonly fmt: FormatContext;
  /** The thread that formats and writes for us, when one runs (main thread, built package). */
  private writer: WriterThread | null = null;
  /** Flushes handed to the writer thread and encoded on this thread (diagnostics, tests). */
  readonly batches = { handed: 0, here: 0 };
  /** Counts flushes: a ring slot of transient names last used in this generation is still buffered. */
  private flushGen = 0;
  private pendingMeta = '';
  /** Metadata records in pendingMeta: they count in `end.num_events` once written. */
  private pendingMetaCount = 0;
  /** A bad time from a plugin has been reported (once per thread, at DEBUG). */
  private timesReported = false;
  private readonly files = new HashTable();
  private readonly strings = new HashTable();
  private readonly warned = new Set<string>();
  /** Names this thread gave markUsed, in order of first call (the `end` event's `used`). */
  readonly used = new Set<string>();
  private lastUsed = '';

  /** Sync nesting: spans that end within the current synchronous stretch. */
  private readonly stack = new SyncStack();
  /** Scratch for exitFast's clock read (stampUs: no boxed number). */
  private readonly endClock = new Float64Array(1);
  private demotionQueued = false;
  // Async nesting survives await through AsyncLocalStorage, created on first need (it costs every promise).
  private als: AsyncLocalStorage<SpanState> | null = null;
  // Resolved parent, filled by resolveParent() to avoid allocating on the hot path.
  private pId = -1;
  private pLevel = 0;
  private pTid = 0;

  /** Flushes encoded on this thread (no writer thread, or the last events before the file closes). */
  private encoder: BatchEncoder | null = null;

  private idNext = 0;
  private idEnd = 0;
  private readonly freeLanes: number[] = [];
  private nextLane = 1;
  private readonly namedTids = new Set<number>();
  private readonly tracks = new Map<string, number>();
  /** Counter sampling of this thread (counters/), and its next sample time (µs) that events compare with. */
  private counters: ThreadCounters | null = null;
  private counterDue: Float64Array = NO_COUNTERS;

  constructor(
    readonly config: DFTracerConfig,
    readonly file: TraceFile,
    readonly identity: ThreadIdentity,
  ) {
    this.interner = new Interner(identity.pid);
    this.hostHash = dftHash(identity.hostname);
    const capacity = Math.max(1, Math.min(16384, Math.floor(config.writeBufferSize / BYTES_PER_EVENT)));
    this.capacity = capacity;
    this.buf = new EventBuffer(Math.min(capacity, FIRST_BATCH));
    this.fmt = {
      kindFrag: this.interner.kindFrag,
      keyFrag: this.interner.keyFrag,
      strFrag: this.interner.strFrag,
      incMetadata: config.incMetadata,
      argsHead: argsHead(this.hostHash),
      onTruncated: (n) => {
        this.truncated += n;
        this.warnOnce('truncated', `${n} event(s) longer than 16 KiB had their string args cut`);
      },
    };
    this.folder = config.enableAggregation ? new Folder(config.traceIntervalMs * 1000, this.interner, (_, line) => this.appendRecord(line(this.nextId())), identity.pid, this.hostHash) : null;
  }

  /** Writes the open folds (finalize: the last interval's records, before `end`). */
  drainFolds(): void {
    this.folder?.drain();
  }

  /** Entity ids whose `EH` record this thread wrote. */
  readonly entities = new Set<string>();

  /**
   * An entity record (`EH`, `ET`, `ER`: recording/entity.ts) in our metadata layout, `fields` the
   * JSON members after `hhash` (upstream's order).
   */
  entityRecord(name: 'EH' | 'ET' | 'ER', fields: string): void {
    if (!this.active) return;
    this.appendRecord(`{"id":${this.nextId()},"name":"${name}","cat":"dftracer","pid":${this.identity.pid},"tid":${this.identity.tid},"ph":"M","args":{"hhash":"${this.hostHash}",${fields}}}\n`);
  }

  /** A finished record line (an aggregated record), written with the next flush like metadata. */
  private appendRecord(line: string): void {
    if (!this.active) return;
    this.pendingMeta += line;
    this.pendingMetaCount++;
    if (this.pendingMeta.length > this.config.writeBufferSize) this.flush();
  }

  /** The `thread_name` record of this thread's own track (after the header, for the file's creator). */
  announceThread(): void {
    this.nameTid(this.identity.tid, this.identity.threadName);
  }

  now(): number {
    return nowUs();
  }

  // ---------------------------------------------------------------- nesting

  private resolveParent(): void {
    const stack = this.stack;
    const d = stack.top();
    if (d > 0) {
      this.pId = stack.id[d - 1]!;
      this.pLevel = stack.level[d - 1]!;
      this.pTid = stack.tid[d - 1]!;
      return;
    }
    this.resolveFrom(this.als === null ? undefined : this.als.getStore());
  }

  /** resolveParent, skipping loop blocks (on the sync stack or as the async context). */
  private resolvePastLoops(): void {
    const store = this.als === null ? undefined : this.als.getStore();
    let s = this.openSpan(store);
    if (s === undefined || s.loop !== true) return this.resolveParent();
    // a sync block sits on the stack too: past it only when it is the stack's top
    const d = this.stack.top();
    if (d > 0 && this.stack.id[d - 1] !== s.id) return this.resolveParent();
    for (let n = 0; s !== undefined && (s.loop === true || !s.open) && n < 10_000; n++) s = s.outer;
    this.resolveFrom(s);
  }

  /**
   * The parent from an async context's span: the innermost one still open. A closed span (a
   * continuation that outlived its async function, a loop body after its block) or one not begun
   * (an async iterator's next block) does not enclose what starts now.
   */
  private resolveFrom(store: SpanState | undefined): void {
    const s = this.openSpan(store);
    if (s !== undefined) {
      this.pId = s.id;
      this.pLevel = s.level;
      this.pTid = s.tid;
      return;
    }
    this.pId = -1;
    this.pLevel = 0;
    this.pTid = this.identity.tid;
  }

  /** The innermost open span of an async context: past closed or pending ones, into open stand-ins. */
  private openSpan(store: SpanState | undefined): SpanState | undefined {
    let s = store;
    // bounded: a chain is as deep as the contexts nested when it was made
    for (let n = 0; s !== undefined && !s.open && n < 10_000; n++) s = s.outer;
    if (s === undefined) return undefined;
    for (let n = 0; s.inner !== undefined && s.inner.open && n < 10_000; n++) s = s.inner;
    return s;
  }

  /**
   * Makes `region` the parent of what runs later in the current async context, in every frame
   * of it (see `RegionOptions.context`): it stands in for the span open there. Returns that span,
   * for `takeBack`; without one, the region becomes this frame's context.
   */
  handOver(region: SpanState): SpanState | undefined {
    const holder = this.openSpan(this.asyncStorage().getStore());
    if (holder === undefined || holder === region) {
      this.enterContext(region);
      return region;
    }
    // a stand-in's outer context is the stand-in it replaces (undefined: the holder itself)
    region.outer = holder.inner;
    holder.inner = region;
    return holder;
  }

  /** Ends a `handOver` once the region is stopped. */
  takeBack(holder: SpanState, region: SpanState): void {
    if (holder === region) this.leaveContext(region);
    else if (holder.inner === region) holder.inner = region.outer?.open ? region.outer : undefined;
  }

  /**
   * A region (start()/stop()) may stay open past the current synchronous stretch; once the stack
   * unwinds, it must not stay the parent of unrelated code, so open regions leave the stack at the
   * next microtask checkpoint (where every sync wrapper has returned).
   */
  private queueDemotion(): void {
    if (this.demotionQueued) return;
    this.demotionQueued = true;
    queueMicrotask(() => {
      this.demotionQueued = false;
      this.stack.depth = 0;
    });
  }

  private asyncStorage(): AsyncLocalStorage<SpanState> {
    return (this.als ??= new AsyncLocalStorage<SpanState>());
  }

  nextId(): number {
    if (this.idNext === this.idEnd) {
      const block = this.file.add(ID_SLOT, 1);
      this.idNext = block * ID_BLOCK + 1;
      // The first block is cut short (its other ids go unused): V8 keeps feedback only after a
      // function's first few calls, so taking a block must happen again early, before the record
      // path is compiled, or its first run there would deoptimize it.
      this.idEnd = this.idNext + (this.idEnd === 0 ? FIRST_IDS : ID_BLOCK);
    }
    return this.idNext++;
  }

  private allocLane(): number {
    return this.freeLanes.pop() ?? this.nextLane++;
  }

  laneTid(lane: number): number {
    const tid = this.config.disableTids ? lane : this.identity.tid * 10000 + lane;
    if (!this.namedTids.has(tid)) this.nameTid(tid, `${this.identity.threadName} async ${lane}`);
    return tid;
  }

  // ---------------------------------------------------------------- Tracer

  enter(options?: EnterOptions): SpanState {
    return this.enterSpan(options, options?.async === true);
  }

  /** An iterator's wait for its next item: an async span that may nest under a loop block. */
  enterWait(): SpanState {
    return this.enterSpan({ async: true }, false);
  }

  /**
   * `pastLoops`: a raw async span (a plugin's: an fs callback, a profiler cycle) may outlive the
   * loop body it starts in, which ends at the next item: it nests under the loop's own context.
   */
  private enterSpan(options: EnterOptions | undefined, pastLoops: boolean): SpanState {
    let start = options?.start ?? nowUs();
    if (!isCleanTime(start)) start = this.badTime('enter', 'start', start, nowUs());
    if (pastLoops) this.resolvePastLoops();
    else this.resolveParent();
    const id = this.nextId();
    const level = this.pLevel + 1;
    if (options?.async) {
      const lane = this.allocLane();
      return { id, level, parentId: this.pId, start, async: true, tid: this.laneTid(lane), depth: 0, lane, region: false, open: true, outer: undefined, inner: undefined, loop: false };
    }
    return this.pushSpan(id, level, start, false);
  }

  private pushSpan(id: number, level: number, start: number, region: boolean): SpanState {
    const depth = this.stack.push(id, level, this.pTid, this.pId);
    return { id, level, parentId: this.pId, start, async: false, tid: this.pTid, depth, lane: 0, region, open: true, outer: undefined, inner: undefined, loop: false };
  }

  /** A sync span opened by region start(): it leaves the stack at the next microtask if still open. */
  enterRegion(): SpanState {
    const start = nowUs();
    this.resolveParent();
    const s = this.pushSpan(this.nextId(), this.pLevel + 1, start, true);
    this.queueDemotion();
    return s;
  }

  /** Closes a span without writing it (an iteration that produced no item). */
  discard(span: SpanState): void {
    if (!span.open) return;
    span.open = false;
    if (span.async) this.freeLanes.push(span.lane);
    else this.stack.pop(span.depth, span.id, span.region);
  }

  exit(span: Span, name: string, cat: string, args?: Args, end?: number): void {
    this.exitKind(span as SpanState, this.interner.kind(name, cat), args, this.exitTime(span, end));
  }

  exitTransient(span: Span, name: string, cat: string, args?: Args, end?: number): void {
    const e = this.exitTime(span, end);
    if (!(span as SpanState).open) return;
    let k = this.interner.transientKind(name, cat, this.flushGen);
    if (k < 0) {
      // The ring slot to redefine holds a buffered event's name: write those out first.
      this.flush();
      k = this.interner.transientKind(name, cat, this.flushGen);
    }
    this.exitKind(span as SpanState, k, args, e);
  }

  private exitTime(span: Span, end: number | undefined): number {
    let e = end ?? nowUs();
    if (!isCleanTime(e)) e = this.badTime('exit', 'end', e, nowUs());
    if (e < span.start && (span as SpanState).open) this.badTime('exit', 'end', e, 0, `before the span's start ${span.start}`);
    return e;
  }

  exitKind(span: SpanState, kind: number, args?: Args, end: number = nowUs()): void {
    if (!span.open) return;
    span.open = false;
    if (span.async) this.freeLanes.push(span.lane);
    else this.stack.pop(span.depth, span.id, span.region);
    this.record(kind, span.id, span.tid, span.start, end - span.start, span.level, span.parentId, args);
  }

  /**
   * Turns a sync span whose function returned a promise into an async span, in place (the
   * AsyncLocalStorage store may hold it): it leaves the stack and takes a lane of its own until
   * the promise settles.
   */
  toAsync(span: SpanState): void {
    this.stack.pop(span.depth, span.id, false);
    span.lane = this.allocLane();
    span.tid = this.laneTid(span.lane);
    span.depth = 0;
    span.async = true;
  }

  /** Runs fn with span as the async context (continuations after await see it as parent). */
  runIn<T>(span: SpanState, fn: () => T): T {
    const als = this.asyncStorage();
    this.setOuter(span, als.getStore());
    return als.run(span, fn);
  }

  /** A span's outer context is the first one it was made the context over: chains never loop. */
  private setOuter(span: SpanState, cur: SpanState | undefined): void {
    if (span.outer === undefined && cur !== span) span.outer = cur;
  }

  /** Runs fn in the async context `store` (undefined: none), whatever the current one is. */
  runInContext<T>(store: SpanState | undefined, fn: () => T): T {
    return this.asyncStorage().run(store as SpanState, fn);
  }

  /** The span of the current async context (which may be closed or pending), if any. */
  context(): SpanState | undefined {
    return this.asyncStorage().getStore();
  }

  /**
   * Makes `span` the parent of what runs later in the current async context, across `await`,
   * until `leaveContext(span)`: a loop body that the program runs itself (a generator's consumer),
   * which no wrapper can run inside `within`.
   */
  enterContext(span: SpanState): void {
    const als = this.asyncStorage();
    this.setOuter(span, als.getStore());
    als.enterWith(span);
  }

  /**
   * `enterContext` for the next block of a loop: `span` is entered over `outer` (the context the
   * loop began in), not over the previous block, so a long loop builds no chain.
   */
  enterContextOver(span: SpanState, outer: SpanState | undefined): void {
    span.outer = outer;
    this.asyncStorage().enterWith(span);
  }

  /**
   * Gives the current async context back to what it was before `enterContext(span)`, if it is
   * still `span` (or a span closed or not begun inside it): a context taken over since is kept.
   */
  leaveContext(span: SpanState): void {
    const als = this.als;
    if (als === null) return;
    let s = als.getStore();
    for (let n = 0; s !== undefined && s !== span && !s.open && n < 10_000; n++) s = s.outer;
    if (s === span) als.enterWith(span.outer as SpanState);
  }

  /**
   * A span not begun yet that is already the current async context (`enterContext`): the body of
   * an async iterator's next item, whose context must be set before the item arrives, in the
   * caller's `next()`. Until `beginPending` it is skipped as a parent; its id is taken then.
   */
  enterPending(outer: SpanState | undefined): SpanState {
    const span: SpanState = { id: -1, level: 0, parentId: -1, start: 0, async: true, tid: this.identity.tid, depth: 0, lane: 0, region: false, open: false, outer: undefined, inner: undefined, loop: false };
    this.enterContextOver(span, outer);
    return span;
  }

  /** Begins a pending span now, on a lane, under the innermost open span of its outer context. */
  beginPending(span: SpanState): void {
    this.resolveFrom(span.outer);
    span.id = this.nextId();
    span.level = this.pLevel + 1;
    span.parentId = this.pId;
    span.start = nowUs();
    span.lane = this.allocLane();
    span.tid = this.laneTid(span.lane);
    span.open = true;
  }

  // Allocation-free pair for sync wrappers: the entry on the stack holds everything the event
  // needs, its start time included. A wrapper that held the start itself would box it (a double
  // live across its try/catch, or passed to a call V8 does not inline): 16 bytes per call.

  /** Opens a sync span starting now; returns its 1-based stack depth for exitFast. */
  enterFast(): number {
    this.resolveParent();
    const id = this.nextId();
    const stack = this.stack;
    const d = stack.push(id, this.pLevel + 1, this.pTid, this.pId);
    stampUs(stack.start, d - 1);
    return d;
  }

  /** Closes the sync span at `depth` and records it, ending now. */
  exitFast(depth: number, kind: number, args: Args | undefined): void {
    stampUs(this.endClock, 0);
    const i = depth - 1;
    const stack = this.stack;
    const start = stack.start[i]!;
    this.buf.times(start, this.endClock[0]! - start);
    this.recordTimed(kind, stack.id[i]!, stack.tid[i]!, stack.level[i]!, stack.parent[i]!, args);
    stack.pop(depth, stack.id[i]!, false);
  }

  /** Closes the sync span at `depth` without writing it (an iteration that produced no item). */
  discardFast(depth: number): void {
    this.stack.pop(depth, this.stack.id[depth - 1]!, false);
  }

  /** `exitFast` with the args `{ ...args, ...extra }`, recorded without building that object. */
  exitFastMerged(depth: number, kind: number, args: Args | undefined, extra: Args): void {
    stampUs(this.endClock, 0);
    const i = depth - 1;
    const stack = this.stack;
    const start = stack.start[i]!;
    const b = this.buf;
    b.times(start, this.endClock[0]! - start);
    const id = stack.id[i]!;
    if (!this.active) this.dropped++;
    else {
      const n = b.count;
      if (this.folder !== null && this.folder.takes(kind)) {
        this.folder.add(kind, stack.tid[i]!, b.ts[n]!, b.dur[n]!, { ...args, ...extra });
        stack.pop(depth, id, false);
        return;
      }
      b.pushMerged(kind, id, stack.tid[i]!, stack.level[i]!, stack.parent[i]!, args, extra, this.interner);
      const end = b.ts[n]! + b.dur[n]!;
      if (b.full) this.flush();
      if (end >= this.counterDue[0]!) this.counters!.poll();
    }
    stack.pop(depth, id, false);
  }

  /** The span at `depth` as an object (when a sync wrapper finds its function returned a promise). */
  spanAt(depth: number): SpanState {
    const i = depth - 1;
    const stack = this.stack;
    return { id: stack.id[i]!, level: stack.level[i]!, parentId: stack.parent[i]!, start: stack.start[i]!, async: false, tid: stack.tid[i]!, depth, lane: 0, region: false, open: true, outer: undefined, inner: undefined, loop: false };
  }

  within<T>(span: Span, fn: () => T): T {
    const s = span as SpanState;
    const depth = this.stack.push(s.id, s.level, s.tid, s.parentId);
    try {
      return this.runIn(s, fn);
    } finally {
      this.stack.pop(depth, s.id, false);
    }
  }

  emit(name: string, cat: string, ts: number, dur: number, args?: Args): void {
    if (!(isCleanTime(ts) && isCleanTime(dur))) {
      ts = isCleanTime(ts) ? ts : this.badTime('emit', 'ts', ts, nowUs());
      dur = isCleanTime(dur) ? dur : this.badTime('emit', 'dur', dur, 0);
    }
    this.emitKind(this.interner.kind(name, cat), ts, dur, args);
  }

  reserve(start?: number): SpanState {
    let s = start ?? nowUs();
    if (!isCleanTime(s)) s = this.badTime('reserve', 'start', s, nowUs());
    this.resolveParent();
    // depth 0: not on the sync stack, so exit() writes it without touching the current context.
    return { id: this.nextId(), level: this.pLevel + 1, parentId: this.pId, start: s, async: false, tid: this.pTid, depth: 0, lane: 0, region: false, open: true, outer: undefined, inner: undefined, loop: false };
  }

  track(name: string): number {
    if (typeof name !== 'string' || name === '') throw new TypeError(`track: name must be a non-empty string; got ${safeJson(name)}`);
    let tid = this.tracks.get(name);
    if (tid === undefined) {
      // Above the lanes' range (tid*10000 + lane), below the next thread's.
      const n = TRACK_BASE + this.tracks.size;
      tid = this.config.disableTids ? n : this.identity.tid * 10000 + n;
      this.tracks.set(name, tid);
      this.nameTid(tid, name);
    }
    return tid;
  }

  emitOn(track: number, name: string, cat: string, ts: number, dur: number, args?: Args): void {
    if (!(isCleanTime(ts) && isCleanTime(dur))) {
      ts = isCleanTime(ts) ? ts : this.badTime('emitOn', 'ts', ts, nowUs());
      dur = isCleanTime(dur) ? dur : this.badTime('emitOn', 'dur', dur, 0);
    }
    this.record(this.interner.kind(name, cat), this.nextId(), track, ts, dur, 1, -1, args);
  }

  emitKind(kind: number, ts: number, dur: number, args?: Args): void {
    this.resolveParent();
    this.record(kind, this.nextId(), this.pTid, ts, dur, this.pLevel + 1, this.pId, args);
  }

  shape(name: string, cat: string, keys: readonly string[]): EventShape {
    if (!Array.isArray(keys) || keys.length > MAX_SHAPE_KEYS || keys.some((k) => typeof k !== 'string') || new Set(keys).size !== keys.length) {
      throw new TypeError(`shape: keys must be an array of at most ${MAX_SHAPE_KEYS} distinct strings; got ${safeJson(keys)}`);
    }
    // The same shape asked for again (a plugin set up twice, or per call) is the same handle.
    const kind = this.interner.kind(name, cat);
    const id = `${kind}\0${keys.join('\0')}`;
    const known = this.shapeIds.get(id);
    if (known !== undefined) return known;
    const n = this.shapeCount++;
    if (n * SHAPE_SLOTS === this.shapes.length) this.shapes = grown(this.shapes, this.shapes.length * 2);
    const at = n * SHAPE_SLOTS;
    this.shapes[at] = kind;
    this.shapes[at + 1] = keys.length;
    for (let k = 0; k < keys.length; k++) this.shapes[at + 2 + k] = this.interner.key(keys[k]!);
    this.shapeNames[n] = [...keys];
    this.shapeIds.set(id, n as EventShape);
    return n as EventShape;
  }

  emitShaped(shape: EventShape, ts: number, dur: number, v0?: ArgValue, v1?: ArgValue, v2?: ArgValue, v3?: ArgValue): void {
    if (!(shape >= 0 && shape < this.shapeCount)) throw new RangeError(`emitShaped: ${String(shape)} is not a shape of this tracer (Tracer.shape makes them)`);
    if (!(isCleanTime(ts) && isCleanTime(dur))) {
      ts = isCleanTime(ts) ? ts : this.badTime('emitShaped', 'ts', ts, nowUs());
      dur = isCleanTime(dur) ? dur : this.badTime('emitShaped', 'dur', dur, 0);
    }
    this.resolveParent();
    const id = this.nextId();
    if (!this.active) {
      this.dropped++;
      return;
    }
    const at = shape * SHAPE_SLOTS;
    const s = this.shapes;
    if (this.folder !== null && this.folder.takes(s[at]!)) {
      this.folder.addValues(s[at]!, this.pTid, ts, dur, this.shapeNames[shape]!, v0, v1, v2, v3);
      return;
    }
    const b = this.buf;
    b.times(ts, dur);
    const i = b.count;
    b.pushValues(s[at]!, id, this.pTid, this.pLevel + 1, this.pId, s, at + 2, s[at + 1]!, v0, v1, v2, v3, this.interner);
    const end = b.ts[i]! + b.dur[i]!;
    if (b.full) this.flush();
    if (end >= this.counterDue[0]!) this.counters!.poll();
  }

  hashFile(path: string): string {
    return this.files.get(path, (h) => this.meta('FH', this.identity.tid, path, h));
  }

  hashString(s: string): string {
    return this.strings.get(s, (h) => this.meta('SH', this.identity.tid, s, h));
  }

  metadata(key: string, value: unknown): void {
    this.meta('CM', this.identity.tid, key, typeof value === 'string' ? value : safeJson(value));
  }

  isTraced(path: string): boolean {
    const p = isAbsolute(path) ? resolve(path) : resolve(process.cwd(), path);
    if (p === this.file.shared.path) return false;
    if (this.config.traceAll) return true;
    const dirs = this.config.dataDirs;
    for (let i = 0; i < dirs.length; i++) if (underPrefix(p, dirs[i]!)) return true;
    return false;
  }

  log(level: LogLevel, message: string): void {
    if (LOG_ORDER[level] <= LOG_ORDER[this.config.logLevel]) writeDiagnostic(`dftracer: ${level}: ${message}\n`);
  }

  /** The integer written for a bad time from a plugin (times.ts), said once per thread at DEBUG. */
  private badTime(call: string, field: string, t: unknown, fallback: number, why = 'not a non-negative integer'): number {
    if (!this.timesReported) {
      this.timesReported = true;
      let shown: string;
      try {
        shown = String(t);
      } catch {
        shown = typeof t;
      }
      this.log('DEBUG', `${call}: ${field} ${shown} is ${why} (µs); written as an integer (non-finite: now or 0, fractions floored, negative durations 0). Later cases are not reported.`);
    }
    return cleanTime(t, fallback);
  }

  warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    if (!this.file.claimOnce(key)) return; // another thread of the process already said it
    this.log('WARN', message);
  }

  markUsed(name: string): void {
    // Called per event by some integrations: the same name again is one compare.
    if (name === this.lastUsed) return;
    if (typeof name !== 'string' || name === '') throw new TypeError(`markUsed: name must be a non-empty string; got ${safeJson(name)}`);
    this.lastUsed = name;
    if (this.used.has(name)) return;
    this.used.add(name);
    this.file.markUsed(name);
  }

  // ---------------------------------------------------------------- writing

  record(kind: number, id: number, tid: number, ts: number, dur: number, level: number, pidx: number, args: Args | undefined): void {
    this.buf.times(ts, dur);
    this.recordTimed(kind, id, tid, level, pidx, args);
  }

  /**
   * `record` for an event whose times the caller has just given the buffer (`buf.times`): the hot
   * span exit does, as a double passed to a call V8 does not inline is boxed (16 bytes each).
   */
  private recordTimed(kind: number, id: number, tid: number, level: number, pidx: number, args: Args | undefined): void {
    if (!this.active) {
      this.dropped++;
      return;
    }
    const b = this.buf;
    const i = b.count;
    if (this.folder !== null && this.folder.takes(kind)) {
      this.folder.add(kind, tid, b.ts[i]!, b.dur[i]!, args);
      return;
    }
    b.pushArgs(kind, id, tid, level, pidx, args, this.interner);
    const end = b.ts[i]! + b.dur[i]!;
    if (b.full) this.flush();
    if (end >= this.counterDue[0]!) this.counters!.poll();
  }

  /**
   * A metadata record: written with the next flush, no ts; it takes the next id of the file's one
   * sequence and counts in `end.num_events`, as upstream's records do.
   */
  meta(name: string, tid: number, argName: string, value: string): void {
    if (!this.active) return;
    this.pendingMeta += metadataLine(name, this.nextId(), this.identity.pid, tid, this.hostHash, argName, value, this.fmt.onTruncated);
    this.pendingMetaCount++;
    if (this.pendingMeta.length > this.config.writeBufferSize) this.flush();
  }

  /** What counterLine could not write as given: one warning per kind and trace file. */
  private readonly counterWarn: CounterWarn = (problem, message) => this.warnOnce(`counter:${problem}`, message);

  /** A counter record (`"ph":"C"`) at `ts`, written with the next flush like metadata records. */
  counter(name: string, cat: string, values: CounterValues, ts: number = nowUs()): void {
    if (!this.active) return;
    this.markUsed('counters');
    const line = counterLine(this.nextId(), name, cat, this.identity.pid, this.identity.tid, isCleanTime(ts) ? ts : nowUs(), this.hostHash, values, this.counterWarn);
    if (line === null) return;
    this.pendingMeta += line;
    this.pendingMetaCount++;
    if (this.pendingMeta.length > this.config.writeBufferSize) this.flush();
  }

  /** Starts sampling counters on this thread (config.countersIntervalMs > 0); stopCounters ends it. */
  startCounters(): void {
    if (this.counters !== null || this.config.countersIntervalMs <= 0) return;
    this.counters = new ThreadCounters(this, this.config.countersIntervalMs);
    this.counterDue = this.counters.due;
  }

  stopCounters(): void {
    const c = this.counters;
    if (c === null) return;
    this.counterDue = NO_COUNTERS;
    this.counters = null;
    c.stop();
  }

  get writerSamplesProcess(): boolean {
    return this.writer !== null && this.config.countersIntervalMs > 0;
  }

  private nameTid(tid: number, name: string): void {
    this.namedTids.add(tid);
    this.meta('thread_name', tid, name, String(tid));
  }

  /** Text that must precede everything else this thread writes (the `[` line); not a record. */
  prepend(text: string): void {
    this.pendingMeta = text + this.pendingMeta;
  }

  /** The `]` line that closes the array after `end`, as upstream writes it; its own gzip member. */
  closeArray(): void {
    const text = ']\n';
    const f = this.file.shared;
    const bytes = Buffer.from(text);
    this.file.write(f.encoding.compression ? threadDeflate()(bytes, f.encoding.level) : bytes, 0);
  }

  /** Records written to the file so far, metadata included (what `end.num_events` says). */
  recordsWritten(): number {
    return this.file.load(COUNT_SLOT);
  }

  /** Moves formatting, gzip and writing of this thread's events to a writer thread. */
  startWriter(): void {
    if (this.writer !== null || !this.config.writerThread) return;
    try {
      const every = this.config.countersIntervalMs;
      const counters = every > 0 ? { intervalMs: every, pid: this.identity.pid, tid: this.identity.tid, hhash: this.hostHash } : null;
      this.writer = WriterThread.start(this.file.shared, this.config.incMetadata, this.fmt.argsHead, LOG_ORDER.WARN <= LOG_ORDER[this.config.logLevel], counters, this.config.writeBufferSize);
    } catch (e) {
      this.log('INFO', `no writer thread (${(e as Error).message}); formatting on this thread`);
    }
  }

  /**
   * Flushes and waits until the writer thread has written everything, then formats on this
   * thread from now on (for the final events, written right before the file closes).
   */
  settle(): void {
    this.flush();
    const w = this.writer;
    if (w === null) return;
    this.writer = null;
    if (!w.drain() || w.failed) this.writerLost(w);
    w.stop();
  }

  private writerLost(w: WriterThread): void {
    const lost = w.pendingEvents;
    this.dropped += lost;
    this.written -= lost;
    // One warning per process for a write error, whichever thread met it first.
    if (!w.failed || this.file.claimReport()) this.log('WARN', `${w.failed ? `writing ${this.file.shared.path} failed (${this.file.failed}); tracing stopped, the program goes on` : w.dead ?? 'the writer thread stopped'}; ${lost} event(s) lost`);
    if (w.failed) this.active = false;
  }

  /** The capacity of the buffer after `n` events left this one: short ones (FIRST_BATCH) until one fills up. */
  private nextCapacity(n: number): number {
    return n < this.buf.capacity ? this.buf.capacity : this.capacity;
  }

  /** Empties the buffer after `n` events left it, for the next events. */
  private emptyBuffer(n: number): void {
    const c = this.nextCapacity(n);
    if (c === this.buf.capacity) this.buf.reset();
    else this.buf = new EventBuffer(c);
  }

  /** Formats and writes everything buffered as one member (or hands it to the writer thread). */
  flush(): void {
    // Events recorded from here on are in a later batch (Interner.transientKind).
    this.flushGen++;
    const n = this.buf.count;
    if (n === 0 && this.pendingMeta === '') return;
    const meta = this.pendingMeta;
    const metaCount = this.pendingMetaCount;
    this.pendingMeta = '';
    this.pendingMetaCount = 0;
    const w = this.writer;
    if (w !== null) {
      if (!w.failed && w.hand(meta, metaCount, this.buf, this.interner)) {
        this.batches.handed++;
        this.written += n;
        this.buf = new EventBuffer(this.nextCapacity(n), w.reuse());
        return;
      }
      // The writer failed or died: what it still held is lost; this batch is written here.
      this.writer = null;
      this.writerLost(w);
      w.stop();
      if (!this.active) {
        this.dropped += n;
        this.emptyBuffer(n);
        return;
      }
    }
    // Formatted here from the interner's own arrays: no redefinition needs sending.
    this.interner.redefined.length = 0;
    const encoder = (this.encoder ??= new BatchEncoder(this.fmt, this.file.shared.encoding, this.file.encoderStats, threadDeflate()));
    let bytes: Buffer;
    try {
      bytes = encoder.encode(meta, this.buf);
    } finally {
      this.emptyBuffer(n);
    }
    const ok = this.file.write(bytes, n + metaCount);
    this.batches.here++;
    if (ok) {
      this.written += n;
      return;
    }
    this.dropped += n;
    if (this.file.failed !== null) {
      this.active = false;
      if (this.file.claimReport()) this.log('WARN', `writing ${this.file.shared.path} failed (${this.file.failed}); tracing stopped, the program goes on`);
    } else if (this.file.closed) this.active = false; // the main thread finalized: this thread's later events are dropped
  }
}
