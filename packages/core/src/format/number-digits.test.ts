import { describe, expect, it } from 'vitest';
import { numberDigits } from './number-digits.js';

describe('numberDigits', () => {
  it('writes what String and numberText write', () => {
    const out = new Uint8Array(32);
    const vs = [0, -0, 1, 9, 10, 99999999, 100000000, 123456789, 1760934170173819, 2 ** 53 - 1, 2 ** 53, -1, -123456789012, 1.5, -2.25e-7, 1e21, NaN, Infinity, -Infinity, 5e-324, -1.7976931348623157e308];
    for (const v of vs) {
      for (const json of [false, true]) {
        const n = numberDigits(v, out, json);
        const want = json ? (Number.isFinite(v) ? (v === 0 ? '0' : String(v)) : v > 0 ? '"Infinity"' : v < 0 ? '"-Infinity"' : '"NaN"') : String(v);
        expect(Buffer.from(out.subarray(0, n)).toString(), `${v} json=${json}`).toBe(want);
      }
    }
  });
});
