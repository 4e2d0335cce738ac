import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '@dftracer/testing';
import { COMMITTED_SLOT, COUNT_SLOT, PENDING_COUNT, PENDING_END, PENDING_EVENTS, TraceFile } from './trace-file.js';

describe('TraceFile', () => {
  it('cuts off bytes a terminated writer left past the last counted write, so num_events matches the file', () => {
    const path = join(tempDir('dft-trace-file-'), 'trace.pfw');
    const file = TraceFile.create(path, { compression: false, level: 1, gzipEncoder: 'zlib' });
    expect(file.write(Buffer.from('{"id":1}\n'), 1)).toBe(true);
    // what a worker terminated between its write(2) and its count leaves: bytes nobody counted
    appendFileSync(path, '{"id":2}\n{"id":3,"na');
    expect(file.write(Buffer.from('{"id":4}\n'), 1)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"id":1}\n{"id":4}\n');
    expect(file.load(COUNT_SLOT)).toBe(2);
    file.close();
  });

  it('counts a write whose thread died after committing it and before counting it', () => {
    const path = join(tempDir('dft-trace-file-'), 'trace.pfw');
    const file = TraceFile.create(path, { compression: false, level: 1, gzipEncoder: 'zlib' });
    expect(file.write(Buffer.from('{"id":1}\n'), 1)).toBe(true);
    // What write() does for a batch of 2 records, up to the commit: then its thread is terminated.
    const line = '{"id":2}\n{"id":3}\n';
    const end = BigInt(readFileSync(path).length + line.length);
    Atomics.store(file.i64, PENDING_COUNT, Atomics.load(file.i64, COUNT_SLOT));
    Atomics.store(file.i64, PENDING_EVENTS, 2n);
    Atomics.store(file.i64, PENDING_END, end);
    appendFileSync(path, line);
    Atomics.store(file.i64, COMMITTED_SLOT, end);
    // The next holder of the lock finishes the count: the file's records and its count agree.
    expect(file.write(Buffer.from('{"id":4}\n'), 1)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"id":1}\n{"id":2}\n{"id":3}\n{"id":4}\n');
    expect(file.load(COUNT_SLOT)).toBe(4);
    file.close();
  });

  it('a write that died before its commit is cut off and not counted', () => {
    const path = join(tempDir('dft-trace-file-'), 'trace.pfw');
    const file = TraceFile.create(path, { compression: false, level: 1, gzipEncoder: 'zlib' });
    expect(file.write(Buffer.from('{"id":1}\n'), 1)).toBe(true);
    const line = '{"id":2}\n';
    Atomics.store(file.i64, PENDING_COUNT, Atomics.load(file.i64, COUNT_SLOT));
    Atomics.store(file.i64, PENDING_EVENTS, 1n);
    Atomics.store(file.i64, PENDING_END, BigInt(readFileSync(path).length + line.length));
    appendFileSync(path, line);
    expect(file.write(Buffer.from('{"id":3}\n'), 1)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"id":1}\n{"id":3}\n');
    expect(file.load(COUNT_SLOT)).toBe(2);
    file.close();
  });
});
