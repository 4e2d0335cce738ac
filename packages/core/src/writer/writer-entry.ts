/** The writer thread: formats, compresses and appends the batches the main thread hands over. */
import { parentPort, workerData } from 'node:worker_threads';
import { columnBuffers, type EventColumns } from '../recording/columns.js';
import { writeDiagnostic } from './diagnostics.js';
import type { FormatContext } from '../format/format-events.js';
import { BatchEncoder } from '../gzip/index.js';
import { TraceFile } from './trace-file.js';
import { detachEarly, markDone, type WriterBatch, type WriterInit } from './writer-thread.js';

detachEarly();
const init = workerData as WriterInit;
const warned = new Set<string>();
const file = TraceFile.join(init.shared);
const progress = new Int32Array(init.progress);
const kindFrag: string[] = [];
const keyFrag: string[] = [];
const strFrag: string[] = [];
const ctx: FormatContext = {
  kindFrag,
  keyFrag,
  strFrag,
  incMetadata: init.incMetadata,
  argsHead: init.argsHead,
  onTruncated: (n) => warnOnce('truncated', `${n} event(s) longer than 16 KiB had their string args cut`),
};

/** A warning once per process, as ThreadTracer.warnOnce gives it (written to fd 2 directly: the main thread may be blocked or exiting). */
function warnOnce(key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  if (!file.claimOnce(key) || !init.warn) return;
  writeDiagnostic(`dftracer: WARN: ${message}\n`);
}

const encoder = new BatchEncoder(ctx, init.shared.encoding, file.encoderStats, (m) => warnOnce('encoder', m));

parentPort!.on('message', (b: WriterBatch) => {
  for (const k of b.newKinds) kindFrag.push(k);
  for (const k of b.newKeys) keyFrag.push(k);
  for (const k of b.newStrs) strFrag.push(k);
  let ok = false;
  try {
    const cols: EventColumns = { ...b.columns, count: b.count, argObj: b.argObj };
    ok = file.write(encoder.encode(b.meta, cols), b.count + b.metaCount);
  } finally {
    markDone(progress, ok ? b.count : 0, file.failed !== null);
  }
  init.recycle.postMessage(b.columns, columnBuffers(b.columns));
});
