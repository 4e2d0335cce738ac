import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '@dftracer/testing';
import { COUNT_SLOT, TraceFile } from './trace-file.js';

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
});
