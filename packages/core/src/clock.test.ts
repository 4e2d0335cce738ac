import { describe, expect, it } from 'vitest';
import { nowUs } from './clock.js';

describe('nowUs', () => {
  it('is integer µs close to Date.now and monotonic', () => {
    const a = nowUs();
    const wall = Date.now() * 1000;
    expect(Number.isInteger(a)).toBe(true);
    expect(Math.abs(a - wall)).toBeLessThan(50_000);
    let prev = a;
    for (let i = 0; i < 10_000; i++) {
      const t = nowUs();
      expect(t).toBeGreaterThanOrEqual(prev);
      prev = t;
    }
  });
});
