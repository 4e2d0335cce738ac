/** Worker thread for `validate`: scans chunks of whole lines (see line-scanner.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { LineScanner } from './line-scanner.js';

const scanner = new LineScanner((workerData as { maxExamples?: number } | null)?.maxExamples ?? 3);
parentPort!.on('message', (msg: { buf: Uint8Array; first: boolean }) => {
  const r = scanner.scanChunk(msg.buf, msg.first);
  // the chunk's memory goes back too, for the reader to reuse
  parentPort!.postMessage({ r, buf: msg.buf.buffer }, [r.records.buffer as ArrayBuffer, msg.buf.buffer as ArrayBuffer]);
});
