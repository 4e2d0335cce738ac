import { describe, expect, it } from 'vitest';
import { nowUs, stampUs } from './clock.js';

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

describe('stampUs', () => {
  it('stores what nowUs returns, at the index asked, leaving the rest', () => {
    const into = new Float64Array(3).fill(-1);
    const before = nowUs();
    stampUs(into, 1);
    const after = nowUs();
    expect(into[0]).toBe(-1);
    expect(into[2]).toBe(-1);
    expect(Number.isInteger(into[1])).toBe(true);
    expect(into[1]).toBeGreaterThanOrEqual(before);
    expect(into[1]).toBeLessThanOrEqual(after);
  });
});
