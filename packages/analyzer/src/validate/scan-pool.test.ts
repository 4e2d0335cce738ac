/**
 * The scanning pool on real worker threads (the built `dist/validate-worker.js`, as the bin runs
 * it): `close()` stops the workers only once every chunk sent has its answer, and a worker that
 * stops fails its chunks instead of leaving them unanswered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrace } from '@dftracer/testing';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { FIELD, FLAG_META, RECORD_SIZE, type ChunkResult } from './line-scanner.js';
import { ScanPool } from './scan-pool.js';

const WORKER = new URL('../../dist/validate-worker.js', import.meta.url);
const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** The small trace's text and what the file itself holds: its lines, complete events and metadata records. */
let text = '';
let truth = { lines: 0, events: 0, metadata: 0 };
beforeAll(() => {
  if (!existsSync(fileURLToPath(WORKER))) throw new Error(`${fileURLToPath(WORKER)} is missing: run "pnpm --filter @dftracer/analyzer build" first`);
  const path = writeSmallTrace(join(dir, 'a.pfw.gz'), 'clean', { pid: 11 }).path;
  text = gunzipSync(readFileSync(path)).toString('utf8');
  const t = readTrace(path);
  truth = { lines: text.split('\n').length - 1, events: t.events.filter((e) => e.ph === 'X').length, metadata: t.events.filter((e) => e.ph === 'M').length };
});

/** Records of complete events in a scanned chunk (the others are metadata and `[`/`]` lines). */
function eventRecords(r: ChunkResult): number {
  let n = 0;
  for (let i = 0; i < r.recordCount; i++) if (r.records[i * RECORD_SIZE + FIELD.FLAGS]! < FLAG_META) n++;
  return n;
}

describe('ScanPool on worker threads', () => {
  it('close() right after a file starts answers every chunk first: the data and the empty chunks telling the other workers', async () => {
    const pool = new ScanPool(3, 3, WORKER);
    expect(pool.threads).toBe(3);
    let answer: ChunkResult | undefined;
    void pool.scan(new TextEncoder().encode(text), true).then((r) => (answer = r));
    expect(pool.inFlight).toBe(3);
    // in the same turn of the event loop as the scan: no answer can have been read yet
    await pool.close();
    expect(pool.inFlight).toBe(0);
    expect(answer).toBeDefined();
    expect(answer!.lines).toBe(truth.lines);
    expect(eventRecords(answer!)).toBe(truth.events);
    expect(answer!.metadata).toBe(truth.metadata);
    await expect(pool.scan(new TextEncoder().encode(text), false)).rejects.toThrow(/^ScanPool\.scan: the pool is closed$/);
  });

  it('a worker that stops fails the chunk sent to it, and every chunk sent to it later', async () => {
    const pool = new ScanPool(1, 3, new URL('data:text/javascript,process.exit(7)'));
    const chunk = () => pool.scan(new TextEncoder().encode(text), true);
    await expect(chunk()).rejects.toThrow(/^validate: a scanning worker stopped \(exit code 7\)$/);
    await expect(chunk()).rejects.toThrow(/^validate: a scanning worker stopped \(exit code 7\)$/);
    await pool.close();
  });
});
