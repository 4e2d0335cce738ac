import { describe, expect, it } from 'vitest';
import { prng as rng } from './synthetic.test-util.js';
import { sortIntegers } from './sort-integers.js';

describe('sortIntegers', () => {
  it.each([
    ['16 bits', 1000, 2 ** 16],
    ['32 bits', 5000, 2 ** 32],
    ['µs epoch times (51 bits)', 20_000, 2 ** 51],
    ['the largest safe integers', 3000, Number.MAX_SAFE_INTEGER],
  ])('sorts %s as the comparison sort does', (_, n, range) => {
    const r = rng(n);
    const a = new Float64Array(n).map(() => Math.floor(r() * range));
    a[0] = range - 1; // the widest digit count is used
    const expected = Float64Array.from(a).sort();
    expect(sortIntegers(a)).toEqual(expected);
  });

  it('sorts a subarray in place, leaving the rest alone', () => {
    const a = Float64Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
    const before = Float64Array.from(a);
    sortIntegers(a.subarray(100, 900), new Float64Array(800));
    expect(Array.from(a.subarray(100, 900))).toEqual(Array.from(before.subarray(100, 900)).sort((x, y) => x - y));
    expect(a.subarray(0, 100)).toEqual(before.subarray(0, 100));
    expect(a.subarray(900)).toEqual(before.subarray(900));
  });

  it('rejects what it cannot sort, naming the value', () => {
    expect(() => sortIntegers(Float64Array.of(3, -1, 2))).toThrow(/-1 is not an integer/);
    expect(() => sortIntegers(Float64Array.of(3, 1.5))).toThrow(/1\.5 is not an integer/);
    expect(() => sortIntegers(Float64Array.of(3, 2), new Float64Array(1))).toThrow(/scratch of 1 values for 2/);
  });
});
