import { describe, expect, it } from 'vitest';
import { histogramQuantile } from './name-quantiles.js';
import { prng } from '../test-util/synthetic.test-util.js';

/** quantile_cont over the values themselves, sorted: the definition the histogram must meet. */
function direct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * q;
  return s[Math.floor(h)]! + (s[Math.ceil(h)]! - s[Math.floor(h)]!) * (h - Math.floor(h));
}

describe('quantiles read off a histogram', () => {
  it('equal quantile_cont of the values it counts, for small and skewed samples', () => {
    const rnd = prng(7);
    for (const size of [1, 2, 3, 10, 101, 5000]) {
      const xs = Array.from({ length: size }, () => (rnd() < 0.9 ? Math.floor(rnd() * 20) : Math.floor(rnd() * 100_000)));
      const hist = new Map<number, number>();
      for (const x of xs) hist.set(x, (hist.get(x) ?? 0) + 1);
      const keys = [...hist.keys()].sort((a, b) => a - b);
      const values = Float64Array.from(keys);
      const counts = Float64Array.from(keys, (k) => hist.get(k)!);
      for (const q of [0, 0.5, 0.99, 1]) expect(histogramQuantile(values, counts, keys.length, size, q), `${size} values, q ${q}`).toBeCloseTo(direct(xs, q), 9);
    }
  });
});
