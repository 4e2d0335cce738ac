import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DeflateTokens, MIN_MATCH, WINDOW, gzipMember } from './deflate-block.js';
import { rng } from '../test-util/fixtures.test-util.js';

/**
 * Random token streams, decoded here by the LZ77 rule, must come back from zlib byte for byte.
 * Literals of geometric frequencies make a deep code, and a few long matches (lengths with 5 extra
 * bits) are the rarest symbols, so they get 14–15-bit codes: a bit writer that packs a symbol and
 * its extra bits at once can then overflow its 32-bit accumulator.
 */
describe('DeflateTokens + gzipMember', () => {
  it('writes any mix of literals and matches as a gzip member zlib decodes exactly', () => {
    for (let seed = 1; seed <= 80; seed++) {
      const r = rng(seed);
      const tokens = new DeflateTokens();
      tokens.reset(1 << 12);
      const text: number[] = [];
      let t = 0;
      const n = 30000;
      const longAt = new Set([Math.floor(r() * n), Math.floor(r() * n)]);
      for (let i = 0; i < n; i++) {
        tokens.ensure(t, 8);
        if (text.length < 300 || (r() < 0.7 && !longAt.has(i))) {
          let y = 0;
          while (y < 255 && r() < 0.93) y++;
          tokens.buf[t++] = y;
          tokens.litFreq[y]!++;
          text.push(y);
        } else {
          const len = longAt.has(i) ? 131 + Math.floor(r() * 127) : MIN_MATCH + Math.floor(r() * 8);
          const dist = 1 + Math.floor(r() * Math.min(text.length, r() < 0.01 ? WINDOW : 200));
          t = tokens.match(t, len, dist);
          for (let k = 0; k < len; k++) text.push(text[text.length - dist]!);
        }
      }
      const bytes = Buffer.from(text);
      const gz = gzipMember(tokens, t, crc32(bytes), bytes.length);
      expect(gunzipSync(gz).equals(bytes), `seed ${seed}`).toBe(true);
    }
  });
});
