import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getTracer } from '../api/access.js';
import { finalize, initializeLog } from '../api/lifecycle.js';
import { readTrace, tempDir, traceProblems } from '@dftracer/testing';
import type { GzipEncoder } from '../types.js';
import { EventGzip } from './event-gzip.js';

/** Traces `batches` flushes of POSIX-read-shaped events in this process and returns the `end` event's args. */
function traceAndEnd(gzipEncoder: GzipEncoder, batches = 4): Record<string, unknown> {
  const dir = tempDir('dft-end-');
  const file = initializeLog({ enable: true, logFile: join(dir, 'enc'), dataDir: join(dir, 'none'), gzipEncoder, writeBufferSize: 64 * 1024 }).file!;
  const t = getTracer()!;
  const read = t.shape('read', 'POSIX', ['fhash', 'count', 'offset', 'ret']);
  const t0 = t.now();
  const fhash = t.hashFile(join(dir, 'data.bin'));
  for (let i = 0; i < batches * 400; i++) t.emitShaped(read, t0 + 10 * i, 3, fhash, 4096, i * 4096, 4096);
  finalize();
  const trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  return trace.complete.find((e) => e.name === 'end')!.args!;
}

describe('the end event counts how batches were encoded', () => {
  afterEach(() => vi.restoreAllMocks());

  it('batches per path, by default the hand-written encoder measured against zlib on a sample', () => {
    const end = traceAndEnd('auto');
    expect(end).toMatchObject({ batches_plain: 0, encoder_fallbacks: 0 });
    expect(end.batches_custom).toBeGreaterThanOrEqual(4);
    // zlib took at most the header's flush: metadata and the start event, all of it new text.
    expect(end.batches_zlib).toBeLessThanOrEqual(1);
    expect(end.batches_sampled).toBeGreaterThanOrEqual(1);
  });

  it('forced zlib: every batch by zlib, none measured', () => {
    const end = traceAndEnd('zlib');
    expect(end).toMatchObject({ batches_custom: 0, batches_sampled: 0, encoder_fallbacks: 0 });
    expect(end.batches_zlib).toBeGreaterThanOrEqual(4);
  });

  it('fallbacks: the batches the hand-written encoder failed on, written by zlib, the first error told at WARN', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(EventGzip.prototype, 'encode').mockImplementation(() => {
      throw new RangeError('invalid DEFLATE match: 2 bytes 229 back');
    });
    const end = traceAndEnd('custom');
    expect(end.batches_custom).toBe(0);
    expect(end.encoder_fallbacks).toBeGreaterThanOrEqual(4);
    expect(end.batches_zlib).toBeGreaterThanOrEqual(end.encoder_fallbacks as number);
    const warnings = stderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('gzip encoder failed'));
    expect(warnings).toEqual(['dftracer: WARN: the gzip encoder failed on a batch (invalid DEFLATE match: 2 bytes 229 back); it was written by zlib\n']);
  });
});
