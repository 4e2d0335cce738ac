import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CRC_START, crcBytes, crcFinish, crcShift, shiftMap } from './crc32.js';

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
});
