import { describe, expect, it } from 'vitest';
import { prng } from '../../test-util/synthetic.test-util.js';
import { IdTable } from './id-table.js';

describe('IdTable', () => {
  it('keeps the same entries as a Map through inserts, growth and deletions (ids beyond 2^32 too)', () => {
    const t = new IdTable();
    const want = new Map<number, number>();
    const rnd = prng(7);
    for (let step = 0; step < 200_000; step++) {
      // few distinct ids, so probes collide and deletions shift entries back
      const id = Math.floor(rnd() * 300) * (rnd() < 0.1 ? 4294967296 : 1);
      if (rnd() < 0.55) {
        const e = t.get(id);
        t.kidsA[e]!++;
        want.set(id, (want.get(id) ?? 0) + 1);
      } else if (want.has(id)) {
        const e = t.find(id);
        expect(t.kidsA[e]).toBe(want.get(id));
        t.kidsA[e]!--;
        t.release(e);
        if (want.get(id) === 1) want.delete(id);
        else want.set(id, want.get(id)! - 1);
      } else expect(t.find(id)).toBe(-1);
    }
    for (const [id, n] of want) expect(t.kidsA[t.find(id)]).toBe(n);
  });
});
