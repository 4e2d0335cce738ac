import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir } from '@dftracer/testing';
import { setAppMetadata } from './app-metadata.js';
import { CORE_DIST, runModule } from '../test-util/node-process.test-util.js';

// A worker thread's fs reads mark `posix` (the main thread reads nothing traced); a plugin's own
// name is kept; app metadata set twice keeps the last value and is gone after finalize.
const PROGRAM = `
import { initializeLog, finalize, setAppMetadata, addPlugin, getTracer } from CORE;
import { Worker } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
writeFileSync(process.env.DATA + '/x', 'abc');
const log = initializeLog({ logFile: process.env.LOG_FILE, dataDir: process.env.DATA, countersIntervalMs: 0 });
setAppMetadata('run', 'first');
setAppMetadata('run', 'second');
setAppMetadata('ranks', 4);
addPlugin({ name: 'mine', setup: (t) => t.markUsed('my_layer') });
await new Promise((res, rej) => {
  const w = new Worker(\`
    const { initializeLog, finalize } = await import(\${JSON.stringify(process.env.DFT_LIB)});
    const { readFileSync } = await import('node:fs');
    initializeLog();
    readFileSync(process.env.DATA + '/x');
    finalize();
  \`, { eval: true, type: 'module' });
  w.on('exit', res); w.on('error', rej);
});
finalize();
const again = initializeLog({ logFile: process.env.LOG_FILE + '2', dataDir: process.env.DATA, countersIntervalMs: 0 });
finalize();
console.log(JSON.stringify([log.file, again.file]));
`;

describe('the end event describes the run', () => {
  it('used holds a worker thread marks and a plugin own name; app the last value per key, for one trace only', () => {
    const dir = tempDir();
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', LOG_FILE: join(dir, 'run'), DATA: dir, DFT_LIB: CORE_DIST });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [first, second] = JSON.parse(r.stdout) as [string, string];
    const end = (f: string) => readTrace(f).complete.find((e) => e.name === 'end')!.args as Record<string, unknown>;
    const a = end(first);
    expect(a.used).toEqual(['my_layer', 'posix']);
    // the only traced I/O is the worker's
    expect(readTrace(first).complete.filter((e) => e.cat === 'POSIX').every((e) => e.tid !== e.pid)).toBe(true);
    expect(readTrace(first).complete.some((e) => e.cat === 'POSIX' && e.name === 'read')).toBe(true);
    expect(a.app).toEqual({ run: 'second', ranks: 4 });
    const b = end(second);
    expect(b.app).toEqual({});
    expect(b.used).toEqual([]);
  });

  it('setAppMetadata names the bad argument', () => {
    expect(() => setAppMetadata('', 1)).toThrow(/setAppMetadata: key must be a non-empty string/);
    expect(() => setAppMetadata('k', { a: 1 } as never)).toThrow(/value of "k" must be a string, number or boolean; got object/);
    expect(() => setAppMetadata('k', null as never)).toThrow(/got null/);
  });
});
