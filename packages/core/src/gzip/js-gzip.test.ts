import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { jsGzip } from './js-gzip.js';

const SAMPLES = ['cm1-DEFAULT-3537784-preload.pfw.gz', 'dlio-trace-2-of-8.pfw.gz'].map((f) => gunzipSync(readFileSync(new URL(`../../../../../shared/data/upstream-samples/${f}`, import.meta.url))));

/** Deterministic bytes of the given character set. */
function noise(n: number, alphabet: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = 32 + ((s >>> 16) % alphabet);
  }
  return out;
}

describe('jsGzip', () => {
  it('round-trips through zlib: empty, tiny, random, long runs, matches across the 32 KiB window', () => {
    const run = new Uint8Array(300_000).fill(65);
    const periodic = new Uint8Array(200_000);
    for (let i = 0; i < periodic.length; i++) periodic[i] = (i % 40_000) % 251;
    const cases = [new Uint8Array(0), Buffer.from(']\n'), Buffer.from('abcd'), Buffer.from('abcabcabcabcabcabc'), noise(100_000, 256), noise(100_000, 4), run, periodic, ...SAMPLES.map((s) => s.subarray(0, 1 << 20))];
    for (const c of cases) expect(Buffer.compare(gunzipSync(jsGzip(c)), Buffer.from(c))).toBe(0);
  });

  it('on real trace lines writes no more than zlib -1 (DESIGN: never above zlib -1)', () => {
    for (const s of SAMPLES) {
      const text = s.subarray(0, 1 << 20);
      const ours = jsGzip(text).length;
      const zlib1 = gzipSync(text, { level: 1 }).length;
      expect(ours).toBeLessThanOrEqual(zlib1);
    }
  });
});
