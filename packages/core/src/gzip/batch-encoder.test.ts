import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { BatchEncoder } from './batch-encoder.js';
import { EventBuffer, Interner, type FormatContext } from '../event-buffer.js';
import { EventGzip } from './event-gzip.js';
import { formatContext, formattedText, pushPosixReads } from '../format.test-util.js';
import { FH } from '../line-gzip.test-util.js';

function setup() {
  const interner = new Interner(4242);
  return { interner, ctx: formatContext(interner) };
}

const text = (buf: EventBuffer, ctx: FormatContext): Buffer => formattedText('', buf, ctx);

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

describe('BatchEncoder', () => {
  it('writes the text path’s lines at every level, batch after batch, numeric or full of new text', () => {
    for (const level of [1, 4, 9]) {
      const { interner, ctx } = setup();
      const enc = new BatchEncoder(ctx, true, level);
      [false, true, false, true].forEach((paths, b) => {
        const buf = batch(interner, b * 2000, paths);
        expect(gunzipSync(enc.encode('', buf)).equals(text(buf, ctx)), `level ${level}, batch ${b}`).toBe(true);
      });
    }
  });

  it('sends a batch of new text to zlib (the columnar encoder copies only whole strings)', () => {
    const { interner, ctx } = setup();
    const enc = new BatchEncoder(ctx, true, 1);
    const numeric = batch(interner, 0, false);
    const paths = batch(interner, 2000, true);
    // The numeric batch: the columnar encoder, well under zlib -1's size.
    expect(enc.encode('', numeric).length).toBeLessThan(0.9 * gzipSync(text(numeric, ctx), { level: 1 }).length);
    // The batch of paths: zlib -1 itself (the columnar encoder took ~3× its size).
    expect(enc.encode('', paths).length).toBeLessThanOrEqual(gzipSync(text(paths, ctx), { level: 1 }).length);
  });

  it('writes a batch the columnar encoder refuses (an invalid match, say) the text way, whole', () => {
    const { interner, ctx } = setup();
    const enc = new BatchEncoder(ctx, true, 1);
    const spy = vi.spyOn(EventGzip.prototype, 'encode').mockImplementationOnce(() => {
      throw new RangeError('invalid DEFLATE match: 2 bytes 229 back');
    });
    try {
      const buf = batch(interner, 0, false);
      expect(gunzipSync(enc.encode('', buf)).equals(text(buf, ctx))).toBe(true);
      const next = batch(interner, 2000, false); // and the next batch is columnar again
      expect(gunzipSync(enc.encode('', next)).equals(text(next, ctx))).toBe(true);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('writes plain lines without compression', () => {
    const { interner, ctx } = setup();
    const buf = batch(interner, 0, false);
    expect(Buffer.from(new BatchEncoder(ctx, false, 1).encode('', buf)).equals(text(buf, ctx))).toBe(true);
  });
});
