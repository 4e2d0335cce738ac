import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CRC_START, crcBytes, crcFinish, crcShift, digitCrcTables, shiftMap } from './crc32.js';

describe('crc32', () => {
  it('matches zlib byte by byte', () => {
    for (const n of [0, 1, 7, 100, 4097]) {
      const b = randomBytes(n);
      expect(crcFinish(crcBytes(CRC_START, b, 0, n))).toBe(crc32(b));
    }
    expect(crcFinish(crcBytes(CRC_START, Buffer.from('123456789'), 0, 9))).toBe(0xcbf43926);
  });

  it('skips a piece of known CRC in one step, for every length up to 300 and a few long ones', () => {
    const lengths = [...Array.from({ length: 301 }, (_, k) => k), 1023, 1024, 5000, 16_385];
    for (const len of lengths) {
      const head = randomBytes(1 + (len % 13));
      const piece = randomBytes(len);
      const whole = Buffer.concat([head, piece]);
      const c = crcBytes(CRC_START, head, 0, head.length);
      const skipped = crcShift(c, shiftMap(len)) ^ crcBytes(0, piece, 0, len);
      expect(crcFinish(skipped), `length ${len}`).toBe(crc32(whole));
    }
  });

  it('gives the CRC of digit text, and of a change to its last digits, from the digit tables', () => {
    const { byteAt, zeros } = digitCrcTables(24);
    const digitsCrc = (t: string): number => {
      let c = zeros[t.length]!;
      for (let j = 0; j < t.length; j++) c ^= byteAt[16 * j + (t.charCodeAt(t.length - 1 - j) - 48)]!;
      return c;
    };
    for (let n = 1; n <= 24; n++) {
      for (let trial = 0; trial < 20; trial++) {
        const t = Array.from(randomBytes(n), (x) => String(x % 10)).join('');
        expect(digitsCrc(t), t).toBe(crcBytes(0, Buffer.from(t), 0, n));
        // The last k digits replaced: the CRC changes by the tables of the changed digits alone.
        const k = 1 + (trial % n);
        const u = t.slice(0, n - k) + Array.from(randomBytes(k), (x) => String(x % 10)).join('');
        let c = crcBytes(0, Buffer.from(t), 0, n);
        for (let j = 0; j < k; j++) c ^= byteAt[16 * j + ((t.charCodeAt(n - 1 - j) ^ u.charCodeAt(n - 1 - j)) & 15)]!;
        expect(c, `${t} → ${u}`).toBe(crcBytes(0, Buffer.from(u), 0, n));
      }
    }
  });
});
