import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { columnBuffers, pickColumns, type ColumnArrays } from '../recording/columns.js';
import type { EventBuffer } from '../recording/event-buffer.js';
import type { Interner } from '../recording/interner.js';
import type { SharedFile } from './trace-file.js';
import type { WriterCounterInit } from '../counters/writer-counters.js';

/**
 * Formatting and gzip cost far more than recording an event (the core's bench), so the main thread
 * hands full buffers to a writer thread: typed arrays are transferred, not copied. The writer
 * formats, compresses and appends them in order; the main thread only waits when too much is in
 * flight (memory stays bounded) and at finalize, until everything handed over is written.
 */

/** Progress shared with the writer: Int32 slots. */
const POSTED = 0;
const DONE = 1;
const FAILED = 2;
const DONE_EVENTS = 3;

/** What the writer needs to format like the tracer: constants, and interned fragments as they grow. */
export interface WriterInit {
  readonly shared: SharedFile;
  readonly progress: SharedArrayBuffer;
  readonly incMetadata: boolean;
  readonly argsHead: string;
  /** Whether DFTRACER_LOG_LEVEL lets warnings through. */
  readonly warn: boolean;
  /** The process-wide counters the writer samples on its own timer; null: counters are off. */
  readonly counters: WriterCounterInit | null;
}

export interface WriterBatch {
  readonly meta: string;
  readonly newKinds: readonly string[];
  /** Kind slots redefined (transient names), each followed by its new fragment: [index, fragment, …]. */
  readonly redefinedKinds: readonly (number | string)[];
  readonly newKeys: readonly string[];
  readonly newStrs: readonly string[];
  readonly count: number;
  /** Metadata records in `meta`: counted with the events in `end.num_events`. */
  readonly metaCount: number;
  readonly argCount: number;
  readonly columns: ColumnArrays;
  readonly argObj: readonly string[];
}

/**
 * Batches in flight before the producer waits. A crash loses what is queued plus the buffer being
 * filled: 1 + 15 buffers of 1 MiB is DFTracer's own default loss window (its 16 MiB buffer), and
 * ~80 k events absorb a burst without making the traced thread wait. Small buffers get more
 * batches, up to MIN_IN_FLIGHT_BYTES in all: 15 of 4 KiB fill in milliseconds, and a writer held
 * up that long (worker threads holding the file's lock on an oversubscribed machine) made the
 * program wait, while a small buffer still means a small loss window.
 */
const BATCHES_IN_FLIGHT = 15;
const MIN_IN_FLIGHT_BYTES = 256 << 10;

/** Batches in flight before the producer waits, for buffers of `bufferBytes` (DFTRACER_WRITE_BUFFER_SIZE). */
export function maxInFlight(bufferBytes: number): number {
  return Math.max(BATCHES_IN_FLIGHT, Math.ceil(MIN_IN_FLIGHT_BYTES / Math.max(1, bufferBytes)));
}

/** A writer that makes no progress for this long is considered dead. */
const STALL_MS = 10_000;

function entryPath(): string | null {
  try {
    const p = fileURLToPath(new URL('./writer-entry.js', import.meta.url));
    return existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/**
 * Detaches an empty ArrayBuffer. Until a thread detaches its first ArrayBuffer, V8 compiles its
 * typed-array code on the assumption that none ever will be; the first handover of columns (a
 * transfer detaches them) then throws all that optimized code away (in the writer thread, most of
 * the encoder) and compiles it again. Each side calls this before its hot code runs, so the first
 * handover finds nothing to invalidate.
 */
export function detachEarly(): void {
  try {
    const b = new ArrayBuffer(0);
    structuredClone(b, { transfer: [b] });
  } catch {
    // Only a matter of speed: without it the tracer works the same.
  }
}

/** Messages to the writer thread: a session opens, its batches, it closes. */
export type WriterMessage = { readonly open: WriterInit } | { readonly close: true } | WriterBatch;

/** What the writer thread is started with (its workerData). */
export interface WriterData {
  /** Where the writer sends emptied arrays back for reuse, whichever session they came from. */
  readonly recycle: MessagePort;
}

/**
 * The process's writer thread, shared by its tracing sessions; `dead` once it cannot write. One
 * recycling channel serves all sessions: a port per session would stay allocated, with its
 * queue, until the event loop turns, and a program may trace session after session without
 * yielding.
 */
interface ThreadHandle {
  readonly worker: Worker;
  readonly recycled: MessagePort;
  dead: string | null;
}

/** Emptied arrays kept between sessions (at most this many sets), so a new session allocates none. */
const MAX_SPARE = 2;
const spare: ColumnArrays[] = [];

/**
 * One writer thread serves every session (initializeLog … finalize) of the process, and it is
 * never terminated: Node 20 aborts the process (NodePlatform::ForIsolate assertion) when a
 * worker's isolate is torn down while a concurrent compile job of that isolate is still running
 * and starts incremental marking. A writer that just formatted batches has such jobs in flight,
 * so stopping a writer per session crashed programs that trace in rounds. The idle thread is
 * unref()ed: it never keeps the process alive, and Node stops it at exit.
 */
let thread: ThreadHandle | null = null;

/**
 * The writer's young generation (V8's default lets it grow to 48 MiB): what the writer allocates
 * dies within one batch, so small semi-spaces cost it nothing, while grown ones stayed resident
 * and read as tens of MiB of growth in a long run.
 */
const WRITER_YOUNG_MB = 12;

function processThread(entry: string): ThreadHandle {
  if (thread !== null && thread.dead === null) return thread;
  const { port1, port2 } = new MessageChannel();
  const workerData: WriterData = { recycle: port1 };
  // execArgv: [] so a `--import @dftracer/core/register` parent does not trace its own writer.
  const worker = new Worker(entry, { execArgv: [], stdout: false, stderr: false, workerData, transferList: [port1], resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_MB } });
  worker.unref();
  const t: ThreadHandle = { worker, recycled: port2, dead: null };
  worker.on('error', (e) => {
    t.dead = `writer thread failed: ${e.message}`;
  });
  worker.on('exit', () => {
    t.dead ??= 'the writer thread exited';
    port2.close();
  });
  thread = t;
  return t;
}

/** One session's use of the process's writer thread: its file, progress slots and recycled arrays. */
export class WriterThread {
  private readonly progress: Int32Array;
  private posted = 0;
  private postedEvents = 0;
  // The interned fragments the writer has been sent (it formats with copies of them).
  private sentKinds = 0;
  private sentKeys = 0;
  private sentStrs = 0;
  private stalled: string | null = null;
  private open = true;

  private constructor(
    private readonly thread: ThreadHandle,
    init: WriterInit,
    private readonly maxInFlight: number,
  ) {
    this.progress = new Int32Array(init.progress);
    const open: WriterMessage = { open: init };
    thread.worker.postMessage(open);
  }

  /** Opens a session on the writer thread, or returns null when the writer entry is unavailable (run from source). */
  static start(shared: SharedFile, incMetadata: boolean, argsHead: string, warn: boolean, counters: WriterCounterInit | null = null, bufferBytes = 1 << 20): WriterThread | null {
    const entry = entryPath();
    if (entry === null) return null;
    detachEarly();
    return new WriterThread(processThread(entry), { shared, progress: new SharedArrayBuffer(16), incMetadata, argsHead, warn, counters }, maxInFlight(bufferBytes));
  }

  /** Why the writer can no longer take this session's batches, or null while it can. */
  get dead(): string | null {
    return this.stalled ?? this.thread.dead;
  }

  get failed(): boolean {
    return Atomics.load(this.progress, FAILED) !== 0;
  }

  /** Whether the next batch would have to wait for the writer to finish one. */
  get full(): boolean {
    return this.posted - Atomics.load(this.progress, DONE) >= this.maxInFlight;
  }

  /** Events handed over that the writer has not written (yet, or ever if it died). */
  get pendingEvents(): number {
    return this.postedEvents - Atomics.load(this.progress, DONE_EVENTS);
  }

  /**
   * Hands a flush over: the buffer's arrays move to the writer, with the fragments interned since
   * the last handover. Returns false if the writer is gone.
   */
  hand(meta: string, metaCount: number, buf: EventBuffer, interner: Interner): boolean {
    const { kindFrag, keyFrag, strFrag } = interner;
    const handed = this.submit({
      meta,
      newKinds: kindFrag.slice(this.sentKinds),
      redefinedKinds: redefinedKinds(interner, this.sentKinds),
      newKeys: keyFrag.slice(this.sentKeys),
      newStrs: strFrag.slice(this.sentStrs),
      count: buf.count,
      metaCount,
      argCount: buf.argCount,
      columns: pickColumns(buf),
      // Dense (only string values): a holey array as long as the args would be slow to clone.
      argObj: buf.argObj,
    });
    if (handed) {
      interner.redefined.length = 0;
      this.sentKinds = kindFrag.length;
      this.sentKeys = keyFrag.length;
      this.sentStrs = strFrag.length;
    }
    return handed;
  }

  private submit(batch: WriterBatch): boolean {
    if (this.dead !== null) return false;
    if (this.full && !this.waitUntil(this.posted - this.maxInFlight + 1)) return false;
    this.thread.worker.postMessage(batch, columnBuffers(batch.columns));
    this.posted++;
    this.postedEvents += batch.count;
    Atomics.store(this.progress, POSTED, this.posted);
    return true;
  }

  /** Arrays the writer has finished with, ready for the next buffer (never blocks). */
  reuse(): ColumnArrays | undefined {
    return spare.pop() ?? (receiveMessageOnPort(this.thread.recycled)?.message as ColumnArrays | undefined);
  }

  /** Blocks until every handed-over batch is written; false if the writer stalled or died. */
  drain(): boolean {
    return this.dead === null && this.waitUntil(this.posted);
  }

  private waitUntil(done: number): boolean {
    let last = Atomics.load(this.progress, DONE);
    let since = Date.now();
    while (last < done) {
      Atomics.wait(this.progress, DONE, last, 200);
      const now = Atomics.load(this.progress, DONE);
      if (now !== last) {
        last = now;
        since = Date.now();
      } else if (this.dead !== null) {
        return false;
      } else if (Date.now() - since > STALL_MS) {
        this.stalled = `writer thread made no progress for ${STALL_MS} ms`;
        return false;
      }
    }
    return true;
  }

  /**
   * Ends the session; the thread stays for the next one. A thread that stalled is stopped (it may
   * be stuck for good) and the next session starts another.
   */
  stop(): void {
    if (!this.open) return;
    this.open = false;
    // The session's last arrays wait for the next session; the rest are let go.
    for (let m = receiveMessageOnPort(this.thread.recycled); m !== undefined; m = receiveMessageOnPort(this.thread.recycled)) {
      if (spare.length < MAX_SPARE) spare.push(m.message as ColumnArrays);
    }
    if (this.thread.dead === null && this.stalled === null) {
      const close: WriterMessage = { close: true };
      this.thread.worker.postMessage(close);
      return;
    }
    if (this.thread.dead === null) {
      this.thread.dead = this.stalled;
      void this.thread.worker.terminate();
    }
  }
}

/** Writer-side bookkeeping of the progress slots. */
export function markDone(progress: Int32Array, events: number, failed: boolean): void {
  if (failed) Atomics.store(progress, FAILED, 1);
  Atomics.add(progress, DONE_EVENTS, events);
  Atomics.add(progress, DONE, 1);
  Atomics.notify(progress, DONE);
}

/** The redefined kind slots the writer already holds (below `sent`), with their new fragments. */
function redefinedKinds(interner: Interner, sent: number): (number | string)[] {
  const out: (number | string)[] = [];
  for (const k of interner.redefined) if (k < sent) out.push(k, interner.kindFrag[k]!);
  return out;
}
