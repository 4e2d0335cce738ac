import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ancestry, childrenOf, countGzipMembers, descendantsOf, multiset, overlaps, readCrashedTrace, readTrace, tempDir, traceProblems, type TraceEvent } from './index.js';

const HH = 'a'.repeat(16);
const records = [
  { id: 1, name: 'HH', cat: 'dftracer', pid: 7, tid: 7, ph: 'M', args: { name: 'host', value: HH } },
  { id: 2, name: 'start', cat: 'dftracer', pid: 7, tid: 7, ts: 100, dur: 0, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1 } },
  { id: 3, name: 'step', cat: 'compute', pid: 7, tid: 7, ts: 110, dur: 50, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1 } },
  { id: 4, name: 'read', cat: 'POSIX', pid: 7, tid: 7, ts: 120, dur: 10, ph: 'X', args: { hhash: HH, level: 2, p_idx: 3 } },
  { id: 5, name: 'stat', cat: 'POSIX', pid: 7, tid: 7, ts: 121, dur: 2, ph: 'X', args: { hhash: HH, level: 3, p_idx: 4 } },
  { id: 6, name: 'end', cat: 'dftracer', pid: 7, tid: 7, ts: 200, dur: 0, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1, num_events: 5 } },
];
const lines = ['[', ...records.map((r) => JSON.stringify(r)), ']'].map((l) => `${l}\n`);

describe('readTrace', () => {
  const dir = tempDir('dft-testing-');

  it('reads a plain trace: metadata, complete and program events apart', () => {
    const file = join(dir, 'plain.pfw');
    writeFileSync(file, lines.join(''));
    const t = readTrace(file);
    expect(t.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(t.meta.map((e) => e.name)).toEqual(['HH']);
    expect(t.complete.map((e) => e.name)).toEqual(['start', 'step', 'read', 'stat', 'end']);
    expect(t.program.map((e) => e.name)).toEqual(['step', 'read', 'stat']);
    expect(traceProblems(t)).toEqual([]);
  });

  it('reads every member of a multi-member gzip file, and one cut before its `]`', () => {
    const file = join(dir, 'members.pfw.gz');
    const buf = Buffer.concat(lines.map((l) => gzipSync(l)));
    writeFileSync(file, buf);
    expect(countGzipMembers(buf)).toBe(lines.length);
    expect(readTrace(file).events).toHaveLength(records.length);
    const open = join(dir, 'open.pfw.gz');
    writeFileSync(open, Buffer.concat(lines.slice(0, -1).map((l) => gzipSync(l))));
    expect(readTrace(open).lines.at(-1)).not.toBe(']');
    expect(readTrace(open).events).toHaveLength(records.length);
  });

  it('rejects a file without `[` and names the line that is not JSON', () => {
    const file = join(dir, 'bad.pfw');
    writeFileSync(file, lines.slice(1).join(''));
    expect(() => readTrace(file)).toThrow(/not "\["/);
    writeFileSync(file, `[\n${JSON.stringify(records[0])}\n{"id":\n`);
    expect(() => readTrace(file)).toThrow(/bad\.pfw:3/);
  });

  it('reads what a killed process left: complete members, the torn tail counted', () => {
    const file = join(dir, 'torn.pfw.gz');
    const whole = Buffer.concat(lines.slice(0, 4).map((l) => gzipSync(l)));
    writeFileSync(file, Buffer.concat([whole, gzipSync(lines[4]!).subarray(0, 12)]));
    const t = readCrashedTrace(file);
    expect(t.memberCount).toBe(4);
    expect(t.tailBytes).toBe(12);
    expect(t.events.map((e) => e.id)).toEqual([1, 2, 3]);
  });
});

describe('queries', () => {
  const dir = tempDir('dft-testing-');
  const file = join(dir, 'q.pfw');
  writeFileSync(file, lines.join(''));
  const t = readTrace(file);
  const [step, read, stat] = t.program as [TraceEvent, TraceEvent, TraceEvent];

  it('follows p_idx up and down the tree', () => {
    expect(ancestry(t.byId, stat)).toEqual(['read', 'step']);
    expect(ancestry(t.complete, stat)).toEqual(['read', 'step']);
    expect(childrenOf(t.program, [step]).map((e) => e.name)).toEqual(['read']);
    expect(descendantsOf(t.program, [step]).map((e) => e.name)).toEqual(['read', 'stat']);
    expect(multiset(t.program)).toEqual({ 'POSIX/read': 1, 'POSIX/stat': 1, 'compute/step': 1 });
  });

  it('finds slices that cross without nesting', () => {
    expect(overlaps(t.complete)).toEqual([]);
    expect(overlaps([...t.complete, { pid: 7, tid: 7, ts: 125, dur: 100, name: 'late' }])).toHaveLength(1);
    expect(traceProblems({ ...t, complete: [...t.complete, { ...read, id: 9, ts: 150, dur: 20 }] }).join()).toMatch(/crosses/);
  });
});
