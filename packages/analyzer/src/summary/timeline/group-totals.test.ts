import { describe, expect, it } from 'vitest';
import { BIT_DUR_NULL, GroupTotals, OP_SHIFT, type TotalsChunk } from './group-totals.js';

/** A chunk from rows of [g, ts, te, tid, kind, bits, bytes, fid] (NaN: null). */
function chunk(rows: number[][]): TotalsChunk {
  const col = (j: number) => Float64Array.from(rows, (r) => r[j]!);
  return { rows: rows.length, g: col(0), ts: col(1), te: col(2), tid: col(3), kind: col(4), bits: col(5), bytes: col(6), fid: col(7) };
}

const READ = 1 << OP_SHIFT;
const WRITE = 2 << OP_SHIFT;

describe('GroupTotals', () => {
  it('sums per process and per file as SQL does with null ts, dur and tid', () => {
    const t = new GroupTotals(2, 2);
    t.push(
      chunk([
        [0, 100, 150, 7, 1, READ, 4096, 0],
        [0, 120, 130, 8, 1, WRITE, 10, 1],
        // dur null: counts, moves bytes, but adds no time and no end
        [0, 200, 200, 7, 1, READ | BIT_DUR_NULL, 5, 0],
      ]),
    );
    // the next chunk goes on with process 0, then process 1 (a null tid and a null ts)
    t.push(
      chunk([
        [0, 300, 310, 9, 3, 0, 0, -1],
        [1, 50, 60, NaN, 1, READ, 1, 0],
        [1, NaN, NaN, 3, 1, WRITE, 2, 1],
      ]),
    );
    const { proc, file } = t.finish();
    expect([...proc.events]).toEqual([4, 2]);
    expect([...proc.threads]).toEqual([3, 1]);
    expect([...proc.start]).toEqual([100, 50]);
    expect([...proc.end]).toEqual([310, 60]);
    expect([...proc.bytesRead]).toEqual([4101, 1]);
    expect([...proc.bytesWritten]).toEqual([10, 2]);
    expect([...file.ops]).toEqual([3, 2]);
    expect([...file.reads]).toEqual([3, 0]);
    expect([...file.writes]).toEqual([0, 2]);
    expect([...file.bytesRead]).toEqual([4102, 0]);
    expect([...file.readUs]).toEqual([60, 0]);
    expect([...file.writeUs]).toEqual([0, 10]);
    expect([...file.bytesWritten]).toEqual([0, 12]);
    expect([...file.ioUs]).toEqual([60, 10]);
    expect([...file.processes]).toEqual([2, 2]);
  });
});
