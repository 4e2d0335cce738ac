import { describe, expect, it } from 'vitest';
import { prng as rng } from './synthetic.test-util.js';
import { splitTime, type SplitColumns } from './time-split.js';

interface Ev {
  group: number;
  id: number;
  parent: number;
  ts: number;
  te: number;
  kind: number;
}

function columns(events: Ev[], groups: number): SplitColumns {
  const col = (k: keyof Ev) => Float64Array.from(events, (e) => e[k]);
  // one process needs no group column
  const group = groups > 1 ? Uint32Array.from(events, (e) => e.group) : undefined;
  const kind = Uint8Array.from(events, (e) => e.kind);
  return { rows: events.length, groups, group, id: col('id'), parent: col('parent'), ts: col('ts'), te: col('te'), kind };
}

/** The definitions, µs by µs: a point is compute when a compute event holds it and none of its children do. */
function bruteForce(events: Ev[], group: number): { io: number; compute: number; either: number } {
  const mine = events.filter((e) => e.group === group);
  const byId = new Map(mine.map((e) => [e.id, e]));
  const end = Math.max(0, ...mine.map((e) => e.te));
  let io = 0;
  let compute = 0;
  let either = 0;
  for (let t = 0; t < end; t++) {
    const inside = (e: Ev) => e.ts <= t && t < e.te;
    const isIo = mine.some((e) => e.kind === 1 && inside(e));
    const isComp = mine.some(
      (p) =>
        p.kind === 2 &&
        inside(p) &&
        !mine.some((c) => c !== p && c.parent === p.id && byId.get(c.parent) === p && inside(c)),
    );
    io += +isIo;
    compute += +isComp;
    either += +(isIo || isComp);
  }
  return { io, compute, either };
}

describe('splitTime', () => {
  it('gives the small trace its known answers (nested I/O, a lane overlapping a leaf compute)', () => {
    // fetch [10,41) > item [11,40) > open [12,15) read [15,25) read [25,35) close [35,36); forward [50,150);
    // a lane pread [60,110) under no parent; a write [200,220)
    const e: Ev[] = [
      { group: 0, id: 3, parent: 2, ts: 12, te: 15, kind: 1 },
      { group: 0, id: 4, parent: 2, ts: 15, te: 25, kind: 1 },
      { group: 0, id: 5, parent: 2, ts: 25, te: 35, kind: 1 },
      { group: 0, id: 6, parent: 2, ts: 35, te: 36, kind: 1 },
      { group: 0, id: 2, parent: 1, ts: 11, te: 40, kind: 2 },
      { group: 0, id: 1, parent: -1, ts: 10, te: 41, kind: 2 },
      { group: 0, id: 8, parent: -1, ts: 60, te: 110, kind: 1 },
      { group: 0, id: 7, parent: -1, ts: 50, te: 150, kind: 2 },
      { group: 0, id: 9, parent: -1, ts: 200, te: 220, kind: 1 },
      { group: 0, id: 10, parent: -1, ts: 0, te: 0, kind: 0 },
    ];
    const s = splitTime(columns(e, 1));
    expect([s.io[0], s.compute[0], s.either[0]]).toEqual([94, 107, 94 + 107 - 50]);
  });

  it('clips children to their parent and ignores parents of other processes', () => {
    const e: Ev[] = [
      { group: 0, id: 1, parent: -1, ts: 100, te: 200, kind: 2 },
      { group: 0, id: 2, parent: 1, ts: 90, te: 120, kind: 1 }, // starts before the parent: clipped to [100,120)
      { group: 0, id: 3, parent: 1, ts: 190, te: 260, kind: 2 }, // ends after it: [190,200) hides the parent, itself computes to 260
      { group: 0, id: 4, parent: 1, ts: 300, te: 310, kind: 1 }, // outside it: removes nothing
      { group: 1, id: 5, parent: 1, ts: 150, te: 160, kind: 1 }, // id 1 of another process: not a child
    ];
    const s = splitTime(columns(e, 2));
    expect([s.io[0], s.compute[0], s.either[0]]).toEqual([40, 70 + 70, 40 + 70 + 70]);
    expect([s.io[1], s.compute[1], s.either[1]]).toEqual([10, 0, 10]);
  });

  it('equals the definitions on random forests with lanes, unordered rows and several processes', () => {
    const r = rng(11);
    for (let trial = 0; trial < 40; trial++) {
      const events: Ev[] = [];
      let id = 1;
      const groups = 1 + Math.floor(r() * 3);
      for (let g = 0; g < groups; g++) {
        const roots = 1 + Math.floor(r() * 4);
        const grow = (parent: number, ts: number, te: number, depth: number) => {
          const me = id++;
          const kind = depth > 0 && r() < 0.4 ? 1 : r() < 0.1 ? 0 : 2;
          events.push({ group: g, id: me, parent, ts, te, kind });
          if (kind === 1 || depth > 3) return;
          for (let k = Math.floor(r() * 4); k > 0; k--) {
            // children mostly inside, sometimes poking out (an async child outliving its parent)
            const s = ts + Math.floor(r() * (te - ts + 10)) - 5;
            grow(me, Math.max(0, s), Math.max(0, s) + Math.floor(r() * (te - ts)), depth + 1);
          }
        };
        for (let k = 0; k < roots; k++) {
          const s = Math.floor(r() * 300);
          grow(-1, s, s + 1 + Math.floor(r() * 120), 0);
        }
      }
      // file order is not time order
      events.sort(() => r() - 0.5);
      const s = splitTime(columns(events, groups));
      for (let g = 0; g < groups; g++) expect({ io: s.io[g], compute: s.compute[g], either: s.either[g] }).toEqual(bruteForce(events, g));
    }
  });
});
