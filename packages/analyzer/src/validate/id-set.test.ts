import { describe, expect, it } from 'vitest';
import { IdSet } from './id-set.js';

describe('IdSet', () => {
  it('answers like a Set for ids far from 0, going up and down, and beyond 2^30', () => {
    const ids = new IdSet();
    const ref = new Set<number>();
    let x = 12345;
    const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
    const values = [5_000_000, 4_999_999, 0, 7, 2 ** 30, 2 ** 30 + 3, 2 ** 40];
    for (let i = 0; i < 20_000; i++) values.push(5_000_000 + (next() % 200_000) - 100_000);
    for (const v of values) {
      expect(ids.add(v), `add ${v}`).toBe(ref.has(v));
      ref.add(v);
    }
    for (let v = 4_890_000; v < 5_110_000; v += 7) expect(ids.has(v)).toBe(ref.has(v));
    expect(ids.has(1)).toBe(false);
    expect(ids.has(2 ** 30 + 3)).toBe(true);
  });
});
