import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeTraces } from './merge.js';
import { readTrace } from '@dftracer/testing';
import { tempDir, truncateTail, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';
import { validateFiles } from '../validate/validate.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

/** An event's identity apart from its id: what a merge must keep. */
const key = (e: { name: string; cat: string; pid: number; tid: number; ts: number; dur: number; ph: string }) => `${e.ph}|${e.pid}|${e.tid}|${e.cat}|${e.name}|${e.ts}|${e.dur}`;

describe('merge', () => {
  it('merges several processes into one trace that validates and keeps every event', async () => {
    const inputs = [
      // killed before finalize (no closing "]"): its members can be copied as they are
      writeSyntheticTrace({ path: join(dir, 'p1.pfw.gz'), events: 5000, pid: 101, seed: 1, closeBracket: 'none' }).path,
      writeSyntheticTrace({ path: join(dir, 'p2.pfw.gz'), events: 3000, pid: 202, seed: 2, memberBytes: 8 * 1024 }).path,
      writeSmallTrace(join(dir, 'p3.pfw'), 'clean', { pid: 303 }).path,
    ];
    const out = join(dir, 'merged.pfw.gz');
    const r = await mergeTraces(inputs, out);
    expect(r.copied).toBe(1); // the first input's gzip members are reused as they are
    expect(r.remappedPids).toEqual([]);

    const v = await validateFiles([out], { threads: 0 });
    expect(v.files[0]!.problems).toEqual([]);
    expect(v.files[0]!.pids).toBe(3);

    const before = inputs.flatMap((f) => readTrace(f).events);
    const after = readTrace(out).events;
    expect(after.length).toBe(before.length);
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
    expect(r.events).toBe(before.filter((e) => e.ph === 'X').length);
    // ids are unique across the merged file, and p_idx follows its parent
    const ids = after.filter((e) => e.ph === 'X').map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    // metadata survives (FH for every file, HH, thread and process names)
    expect(after.filter((e) => e.ph === 'M').length).toBe(before.filter((e) => e.ph === 'M').length);
  });

  it('moves a pid that an earlier file already used, and drops the torn tail of a truncated input', async () => {
    const a = writeSmallTrace(join(dir, 'same1.pfw.gz'), 'clean', { pid: 77 }).path;
    const b = writeSmallTrace(join(dir, 'same2.pfw.gz'), 'clean', { pid: 77, memberBytes: 256 }).path;
    const c = writeSmallTrace(join(dir, 'cut.pfw.gz'), 'clean', { pid: 78, memberBytes: 256 }).path;
    truncateTail(c, 40); // the "]" member and the end of the one before it
    const out = join(dir, 'merged2.pfw');
    const r = await mergeTraces([a, b, c], out);
    expect(r.remappedPids).toHaveLength(1);
    expect(r.remappedPids[0]!.slice(1)).toEqual([77, 1 << 22]);
    expect(r.warnings[0]).toMatch(/truncated gzip/);
    const v = await validateFiles([out], { threads: 0 });
    // the truncated input has no end event: the merged trace is valid but unfinished
    expect(v.files[0]!.problems).toEqual([]);
    expect(v.files[0]!.warnings[0]).toMatch(/unfinished: no "end" event for pid 78/);
    expect(new Set(readTrace(out).events.map((e) => e.pid))).toEqual(new Set([77, 1 << 22, 78]));
  });

  it("gives a later file no id that the copied first file's p_idx already names (a parent open when it was killed)", async () => {
    // killed mid-run: event 2's parent (id 9) was still open, never written; no "]" (its members are copied)
    const killed = join(dir, 'killed.pfw.gz');
    const ev = (id: number, name: string, ts: number, pIdx: number, level: number) =>
      `{"id":${id},"name":"${name}","cat":"${id === 1 ? 'dftracer' : 'POSIX'}","pid":31,"tid":31,"ts":${ts},"dur":${id === 1 ? 0 : 5},"ph":"X","args":{"level":${level},"p_idx":${pIdx}}}`;
    writeFileSync(killed, gzipSync(`[\n${ev(1, 'start', 1000, -1, 1)}\n${ev(2, 'read', 1010, 9, 2)}\n`));
    const other = writeSmallTrace(join(dir, 'after-killed.pfw.gz'), 'clean', { pid: 32 }).path;
    const r = await mergeTraces([killed, other], join(dir, 'merged3.pfw.gz'));
    expect(r.copied).toBe(1);
    const ids = readTrace(join(dir, 'merged3.pfw.gz')).events.filter((e) => e.pid === 32 && e.id !== undefined).map((e) => e.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(Math.min(...(ids as number[]))).toBeGreaterThan(9);
  });
});
