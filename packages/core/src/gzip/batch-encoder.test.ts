import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BatchEncoder, type Encoding } from './batch-encoder.js';
import { EventBuffer } from '../recording/event-buffer.js';
import { Interner } from '../recording/interner.js';
import { formatContext, formattedText, pushPosixReads } from '../test-util/format.test-util.js';
import { FH } from '../test-util/fixtures.test-util.js';
import { EncoderStats } from './encoder-stats.js';

const encoding = (level: number, compression = true): Encoding => ({ compression, level, gzipEncoder: 'zlib' });

function setup() {
  const interner = new Interner(4242);
  return { interner, ctx: formatContext(interner) };
}

/** A batch of reads; `paths`: each also carries a long path that differs every time. */
function batch(interner: Interner, first: number, paths: boolean): EventBuffer {
  const buf = new EventBuffer(2000);
  if (!paths) {
    pushPosixReads(buf, interner, first, 2000, (n) => 1763870000000000 + n * 7);
    return buf;
  }
  const k = interner.kind('read', 'POSIX');
  for (let n = first; n < first + 2000; n++) {
    const path = `/lustre/project/datasets/imagenet/train/class_${n % 1000}/image_${String(n).padStart(8, '0')}.JPEG`;
    buf.push(k, n + 1, 4242, 1763870000000000 + n * 7, 2 + (n & 3), 1, -1, { fhash: FH[n & 63], offset: n * 4096, path }, interner);
  }
  return buf;
}

const META = '{"name":"FH","cat":"dftracer","pid":4242,"tid":4242,"ph":"M","args":{"hhash":"x","name":"/d","value":"y"}}\n';

describe('BatchEncoder', () => {
  it('writes one gzip member per batch that reads back as the plain formatter’s text, at every level', () => {
    for (const level of [1, 6, 9]) {
      const { interner, ctx } = setup();
      const stats = new EncoderStats();
      const enc = new BatchEncoder(ctx, encoding(level), stats);
      [false, true, false, true].forEach((paths, b) => {
        const buf = batch(interner, b * 2000, paths);
        const meta = b === 0 ? META : '';
        const out = enc.encode(meta, buf);
        expect([out[0], out[1]]).toEqual([0x1f, 0x8b]);
        expect(gunzipSync(out).toString(), `level ${level}, batch ${b}`).toBe(formattedText(meta, buf, ctx).toString());
      });
      expect(stats.counts()).toEqual({ zlib: 4, plain: 0 });
    }
  });

  it('writes the text itself when compression is off, and counts it as plain', () => {
    const { interner, ctx } = setup();
    const stats = new EncoderStats();
    const enc = new BatchEncoder(ctx, encoding(1, false), stats);
    const buf = batch(interner, 0, true);
    expect(enc.encode(META, buf).toString()).toBe(formattedText(META, buf, ctx).toString());
    expect(stats.counts()).toEqual({ zlib: 0, plain: 1 });
  });

  it('writes higher levels no larger than level 1', () => {
    const { interner, ctx } = setup();
    const buf = batch(interner, 0, true);
    const l1 = new BatchEncoder(ctx, encoding(1)).encode('', buf).length;
    const l9 = new BatchEncoder(ctx, encoding(9)).encode('', buf).length;
    expect(l9).toBeLessThanOrEqual(l1);
  });
});
