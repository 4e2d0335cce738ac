import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTracer } from '../api/access.js';
import { finalize, initializeLog } from '../api/lifecycle.js';
import { countGzipMembers, readTrace, tempDir, traceProblems } from '@dftracer/testing';

/** Traces `batches` flushes of POSIX-read-shaped events in this process; the file and the `end` event's args. */
function traceAndEnd(compression: boolean, batches = 4): { file: string; end: Record<string, unknown> } {
  const dir = tempDir('dft-end-');
  const file = initializeLog({ enable: true, logFile: join(dir, 'enc'), dataDir: join(dir, 'none'), compression, writeBufferSize: 64 * 1024 }).file!;
  const t = getTracer()!;
  const read = t.shape('read', 'POSIX', ['fhash', 'count', 'offset', 'ret']);
  const t0 = t.now();
  const fhash = t.hashFile(join(dir, 'data.bin'));
  for (let i = 0; i < batches * 400; i++) t.emitShaped(read, t0 + 10 * i, 3, fhash, 4096, i * 4096, 4096);
  finalize();
  const trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  return { file, end: trace.complete.find((e) => e.name === 'end')!.args! };
}

describe('the end event counts how batches were written', () => {
  it('gzip: every batch before it by zlib, one member each', () => {
    const { file, end } = traceAndEnd(true);
    expect(end.batches_plain).toBe(0);
    expect(end.batches_zlib).toBeGreaterThanOrEqual(4);
    // the members before the end event's own flush are the batches it counts
    expect(countGzipMembers(readFileSync(file))).toBeGreaterThan(end.batches_zlib as number);
    expect(end).not.toHaveProperty('batches_custom');
  });

  it('uncompressed: every batch plain', () => {
    const { end } = traceAndEnd(false);
    expect(end.batches_zlib).toBe(0);
    expect(end.batches_plain).toBeGreaterThanOrEqual(4);
  });
});
