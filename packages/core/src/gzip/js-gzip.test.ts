import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { jsGzip } from './js-gzip.js';

/** Genuine DFTracer traces, in `shared/` beside the repository's root where the clone has it (CI checks it out at ../shared). */
const SAMPLES_DIR = fileURLToPath(new URL('../../../../../shared/data/upstream-samples/', import.meta.url));
const SAMPLES = existsSync(SAMPLES_DIR) ? ['cm1-DEFAULT-3537784-preload.pfw.gz', 'dlio-trace-2-of-8.pfw.gz'].map((f) => gunzipSync(readFileSync(`${SAMPLES_DIR}${f}`))) : [];

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

  it.skipIf(SAMPLES.length === 0)('on real trace lines writes no more than zlib -1 (DESIGN: never above zlib -1; skipped when ../shared/data/upstream-samples is not beside the clone)', () => {
    for (const s of SAMPLES) {
      const text = s.subarray(0, 1 << 20);
      const ours = jsGzip(text).length;
      const zlib1 = gzipSync(text, { level: 1 }).length;
      expect(ours).toBeLessThanOrEqual(zlib1);
    }
  });
});
