import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { exportPerfetto, LaneAssigner } from './export-perfetto.js';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

interface TE {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

/** Per pid/tid, no two slices partially overlap (disjoint or nested only). */
function overlapsPerTrack(events: TE[]): string[] {
  const tracks = new Map<string, Array<[number, number]>>();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const k = `${e.pid}:${e.tid}`;
    if (!tracks.has(k)) tracks.set(k, []);
    tracks.get(k)!.push([e.ts!, e.ts! + e.dur!]);
  }
  const bad: string[] = [];
  for (const [k, list] of tracks) {
    list.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const open: number[] = [];
    for (const [s, e] of list) {
      while (open.length && open[open.length - 1]! <= s) open.pop();
      if (open.length && e > open[open.length - 1]!) bad.push(`${k} [${s}, ${e}]`);
      open.push(e);
    }
  }
  return bad;
}

describe('LaneAssigner', () => {
  it('nests when it can and opens a lane for a partial overlap', () => {
    const a = new LaneAssigner();
    expect(a.place(0, 100)).toBe(0);
    expect(a.place(10, 20)).toBe(0); // nested
    expect(a.place(90, 120)).toBe(1); // partially overlaps [0, 100]
    expect(a.place(100, 130)).toBe(0); // touches: fine
    expect(a.place(125, 140)).toBe(1); // overlaps [100, 130]; lane 1 is free again at 120
    expect(a.place(126, 127)).toBe(0); // nested in [100, 130]
    expect(a.place(128, 150)).toBe(2); // overlaps both lanes
    expect(a.count).toBe(3);
  });
});

describe('export --perfetto', () => {
  it('writes a JSON array that parses, with names, and no overlapping slices on any track', async () => {
    const t = writeSmallTrace(join(dir, 'overlap.pfw.gz'), 'overlap');
    const s = writeSyntheticTrace({ path: join(dir, 's.pfw.gz'), events: 5000, pid: 999 });
    const out = join(dir, 'trace.json.gz');
    const r = await exportPerfetto([t.path, s.path], out, { threads: 1 });
    const events = JSON.parse(gunzipSync(readFileSync(out)).toString('utf8')) as TE[];
    expect(Array.isArray(events)).toBe(true);
    const x = events.filter((e) => e.ph === 'X');
    expect(x.length).toBe(12 + s.completeEvents);
    expect(r.events).toBe(x.length);
    expect(overlapsPerTrack(events)).toEqual([]);
    // the overlapping pread went to a lane next to its thread
    expect(r.lanes).toBe(1);
    const laneName = events.find((e) => e.name === 'thread_name' && String(e.args!.name).includes('(lane 1)'));
    expect(laneName?.args?.name).toBe('fs lane 1 (lane 1)');
    const moved = x.find((e) => e.args?.orig_tid === t.lane)!;
    expect(moved.tid).toBe(laneName!.tid);
    // process and thread names; file paths resolved from FH
    expect(events.find((e) => e.name === 'process_name' && e.pid === 4242)?.args?.name).toBe('python train.py @ node01');
    expect(x.find((e) => e.name === 'write' && e.pid === 4242)?.args?.file).toBe('/data/out/c.bin');
  });

  it('writes plain JSON too', async () => {
    const t = writeSmallTrace(join(dir, 'plain.pfw'));
    const out = join(dir, 'trace.json');
    await exportPerfetto([t.path], out);
    const events = JSON.parse(readFileSync(out, 'utf8')) as TE[];
    expect(events.filter((e) => e.ph === 'X')).toHaveLength(11);
  });
});
