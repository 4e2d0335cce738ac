/**
 * The writer thread: formats, compresses and appends the batches the main thread hands over. It
 * lives as long as the process and serves one session (initializeLog … finalize) at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { columnBuffers, type EventColumns } from '../recording/columns.js';
import { writeDiagnostic } from './diagnostics.js';
import type { FormatContext } from '../format/format-events.js';
import { BatchEncoder } from '../gzip/index.js';
import { TraceFile } from './trace-file.js';
import { WriterCounters } from '../counters/writer-counters.js';
import { detachEarly, markDone, type WriterBatch, type WriterData, type WriterInit, type WriterMessage } from './writer-thread.js';

const { recycle } = workerData as WriterData;

/** What the writer holds for one session: its file, its progress slots, the interned fragments. */
class Session {
  private readonly warned = new Set<string>();
  private readonly file: TraceFile;
  private readonly progress: Int32Array;
  private readonly kindFrag: string[] = [];
  private readonly keyFrag: string[] = [];
  private readonly strFrag: string[] = [];
  private readonly encoder: BatchEncoder;
  private readonly counters: WriterCounters | null;

  constructor(private readonly init: WriterInit) {
    this.file = TraceFile.join(init.shared);
    this.progress = new Int32Array(init.progress);
    const ctx: FormatContext = {
      kindFrag: this.kindFrag,
      keyFrag: this.keyFrag,
      strFrag: this.strFrag,
      incMetadata: init.incMetadata,
      argsHead: init.argsHead,
      onTruncated: (n) => this.warnOnce('truncated', `${n} event(s) longer than 16 KiB had their string args cut`),
    };
    this.encoder = new BatchEncoder(ctx, init.shared.encoding, this.file.encoderStats);
    this.counters = init.counters === null ? null : new WriterCounters(init.counters, this.file);
  }

  /** A warning once per process, as ThreadTracer.warnOnce gives it (written to fd 2 directly: the main thread may be blocked or exiting). */
  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    if (!this.file.claimOnce(key) || !this.init.warn) return;
    writeDiagnostic(`dftracer: WARN: ${message}\n`);
  }

  write(b: WriterBatch): void {
    for (let i = 0; i < b.redefinedKinds.length; i += 2) this.kindFrag[b.redefinedKinds[i] as number] = b.redefinedKinds[i + 1] as string;
    for (const k of b.newKinds) this.kindFrag.push(k);
    for (const k of b.newKeys) this.keyFrag.push(k);
    for (const k of b.newStrs) this.strFrag.push(k);
    let ok = false;
    try {
      const cols: EventColumns = { ...b.columns, count: b.count, argObj: b.argObj };
      // Nothing is encoded for a file that no longer takes this thread's writes: at exit the
      // main thread has drained its batches, so zlib never runs while Node stops this thread.
      if (!this.file.closed) ok = this.file.write(this.encoder.encode(b.meta, cols), b.count + b.metaCount);
    } finally {
      // The arrays go back before the batch counts as done: once the main thread has seen every
      // batch done, it finds every array back (WriterThread.stop keeps them for the next session).
      recycle.postMessage(b.columns, columnBuffers(b.columns));
      markDone(this.progress, ok ? b.count : 0, this.file.failed !== null);
    }
  }

  close(): void {
    this.counters?.stop();
  }
}

detachEarly();
let session: Session | null = null;

parentPort!.on('message', (m: WriterMessage) => {
  if ('open' in m) {
    session?.close();
    session = new Session(m.open);
  } else if ('close' in m) {
    session?.close();
    session = null;
  } else session?.write(m);
});
