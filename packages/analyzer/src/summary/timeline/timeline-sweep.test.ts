/**
 * The sweep's windows come in its stream (`KIND_WINDOW` rows) and leave through `windowDone` as
 * soon as the pass is past them: each once, with the figures of the events inside it, and none
 * held longer than the time it covers (a long run has millions of steps).
 */
import { describe, expect, it } from 'vitest';
import { KIND_WINDOW } from './group-totals.js';
import { TimelineSweep, WINDOW_FIGURES, type TimelineChunk } from './timeline-sweep.js';

type Row = { ts: number; te: number; id: number; key: number; kind: number };

/** A chunk of process 0 from rows (events: one thread, no parent, no bytes). */
function chunk(rows: Row[]): TimelineChunk {
  const col = (f: (r: Row) => number) => Float64Array.from(rows, f);
  return {
    rows: rows.length,
    g: col(() => 0),
    ts: col((r) => r.ts),
    te: col((r) => r.te),
    tid: col((r) => (r.kind === KIND_WINDOW ? NaN : 1)),
    id: col((r) => r.id),
    parent: col(() => -1),
    key: col((r) => r.key),
    kind: col((r) => r.kind),
    bits: col(() => 0),
    bytes: col(() => 0),
    fid: col(() => -1),
  };
}

const COMPUTE = WINDOW_FIGURES.indexOf('compute');
const BUSY = WINDOW_FIGURES.indexOf('busy');

describe('TimelineSweep windows', () => {
  it('hands every window over once, with its figures, as soon as the pass is past it', () => {
    const steps = 5_000;
    const done: Array<{ wid: number; level: number; wall: number; compute: number; busy: number }> = [];
    const sweep = new TimelineSweep({
      keys: { cat: Int32Array.of(0), cats: 1, host: Uint8Array.of(1), wait: Uint8Array.of(0), other: Uint8Array.of(0) },
      dirs: 0,
      fileDir: new Int32Array(0),
      processes: 1,
      nest: false,
      windowDone: (wid, level, wall, f) => done.push({ wid, level, wall, compute: f[COMPUTE]!, busy: f[BUSY]! }),
    });
    // the process window, then per step: its window [100 s, 100 s + 100) and a compute event [+10, +60)
    const rows: Row[] = [{ ts: 0, te: 100 * steps, id: 0, key: 0, kind: KIND_WINDOW }];
    for (let s = 0; s < steps; s++) {
      rows.push({ ts: 100 * s, te: 100 * s + 100, id: 1 + s, key: 2, kind: KIND_WINDOW });
      rows.push({ ts: 100 * s + 10, te: 100 * s + 60, id: 1 + s, key: 0, kind: 2 });
    }
    let held = 0;
    for (let at = 0; at < rows.length; at += 2048) {
      const part = rows.slice(at, at + 2048);
      sweep.push(chunk(part));
      const seen = part.at(-1)!.kind === KIND_WINDOW ? part.at(-1)!.id : part.at(-1)!.id - 1;
      // windows reached and not handed over: the process window and the step of the current time
      held = Math.max(held, 1 + seen - done.length);
    }
    sweep.finish();
    expect(held).toBeLessThanOrEqual(3);
    expect(done).toHaveLength(1 + steps);
    const stepsDone = done.filter((d) => d.level === 2);
    expect(stepsDone.map((d) => d.wid)).toEqual(Array.from({ length: steps }, (_, s) => 1 + s));
    for (const d of stepsDone) expect([d.wall, d.compute, d.busy]).toEqual([100, 50, 50]);
    expect(done.find((d) => d.level === 0)).toEqual({ wid: 0, level: 0, wall: 100 * steps, compute: 50 * steps, busy: 50 * steps });
  });
});
