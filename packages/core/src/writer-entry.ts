/** The writer thread: formats, compresses and appends the batches the main thread hands over. */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { BatchEncoder } from './batch-encoder.js';
import type { EventColumns, FormatContext } from './event-buffer.js';
import { TraceFile } from './trace-file.js';
import { columnBuffers, detachEarly, markDone, type WriterBatch, type WriterInit } from './writer-thread.js';

detachEarly();
const init = workerData as WriterInit;
let warned = false;
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
  onTruncated: (n) => {
    // Written directly to fd 2: the main thread may be blocked or exiting.
    if (warned) return;
    warned = true;
    if (!file.claimOnce('truncated')) return; // once per process, not per thread
    try {
      writeSync(2, `dftracer: WARN: ${n} event(s) longer than 16 KiB had their string args cut\n`);
    } catch {
      // stderr closed: nothing to tell.
    }
  },
};

const encoder = new BatchEncoder(ctx, init.shared.compression, init.shared.level);

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
