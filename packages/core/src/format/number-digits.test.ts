import { describe, expect, it } from 'vitest';
import { differingDigits, numberDigits } from './number-digits.js';

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

describe('differingDigits', () => {
  it('counts the trailing digits of v that differ from r, and hands them over last first', () => {
    const rev = new Uint8Array(32);
    const cases: Array<[number, number, string]> = [
      [12346, 12345, '6'],
      [12400, 12345, '400'],
      [99999, 10000, '99999'],
      [5, 1234, '5'], // shorter than r: all of v
      [1234, 5, '1234'],
      [1760934170173899, 1760934170173819, '99'], // the int32 path for the low eight digits
      [1760934180000000, 1760934170173819, '80000000'],
      [1760934270173819, 1760934170173819, '270173819'], // high parts differ
      [2 ** 53 - 1, 2 ** 53 - 2, '1'],
      [3000000000, 2999999999, '3000000000'], // above int32 with high parts that differ: in doubles
    ];
    for (const [v, r, digits] of cases) {
      const k = differingDigits(v, r, rev);
      expect(Buffer.from(rev.subarray(0, k)).reverse().toString(), `${v} vs ${r}`).toBe(digits);
    }
  });
});
