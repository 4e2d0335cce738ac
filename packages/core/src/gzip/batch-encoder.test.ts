import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { GzipEncoder } from '../types.js';
import { BatchEncoder, type Encoding } from './batch-encoder.js';
import { EventBuffer } from '../recording/event-buffer.js';
import { Interner } from '../recording/interner.js';
import { type FormatContext } from '../format/format-events.js';
import { EventGzip } from './event-gzip.js';
import { formatContext, formattedText, pushPosixReads } from '../test-util/format.test-util.js';
import { FH, rng } from '../test-util/fixtures.test-util.js';
import { EncoderStats } from './encoder-stats.js';

const encoding = (level: number, gzipEncoder: GzipEncoder = 'auto'): Encoding => ({ compression: true, level, gzipEncoder });

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
      const enc = new BatchEncoder(ctx, encoding(level));
      [false, true, false, true].forEach((paths, b) => {
        const buf = batch(interner, b * 2000, paths);
        expect(gunzipSync(enc.encode('', buf)).equals(text(buf, ctx)), `level ${level}, batch ${b}`).toBe(true);
      });
    }
  });

  it('sends a batch of new text to zlib (the columnar encoder copies only whole strings)', () => {
    const { interner, ctx } = setup();
    const enc = new BatchEncoder(ctx, encoding(1));
    const numeric = batch(interner, 0, false);
    const paths = batch(interner, 2000, true);
    // The numeric batch: the columnar encoder, well under zlib -1's size.
    expect(enc.encode('', numeric).length).toBeLessThan(0.9 * gzipSync(text(numeric, ctx), { level: 1 }).length);
    // The batch of paths: zlib -1 itself (the columnar encoder took ~3× its size).
    expect(enc.encode('', paths).length).toBeLessThanOrEqual(gzipSync(text(paths, ctx), { level: 1 }).length);
  });

  it('writes a batch the columnar encoder refuses (an invalid match, say) the text way, whole', () => {
    const { interner, ctx } = setup();
    const enc = new BatchEncoder(ctx, encoding(1));
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
    expect(Buffer.from(new BatchEncoder(ctx, { ...encoding(1), compression: false }).encode('', buf)).equals(text(buf, ctx))).toBe(true);
  });
});

/**
 * A batch the hand-written encoder loses on: events of hundreds of kinds, each with a unique short
 * string and random numbers (short strings, so the batch is not sent to zlib for its text alone).
 */
function losingBatch(interner: Interner, seed: number): EventBuffer {
  const r = rng(seed);
  const buf = new EventBuffer(2000);
  for (let n = 0; n < 2000; n++) {
    const kind = interner.kind(`op_${Math.floor(r() * 1000)}`, `cat_${Math.floor(r() * 7)}`);
    const tag = Math.floor(r() * 36 ** 4).toString(36);
    buf.push(kind, seed * 2000 + n + 1, 4242, 1763870000000000 + Math.floor(r() * 1e9), Math.floor(r() * 1e6), 1, -1, { tag, x: Math.floor(r() * 1e9), y: r() * 1e3 }, interner);
  }
  return buf;
}

describe('BatchEncoder size guard', () => {
  const gz1 = (buf: EventBuffer, ctx: FormatContext): number => gzipSync(text(buf, ctx), { level: 1 }).length;

  it('switches to zlib on a batch where the hand-written encoder writes more, and back where it writes less', () => {
    const { interner, ctx } = setup();
    const stats = new EncoderStats();
    const enc = new BatchEncoder(ctx, encoding(1), stats);
    const custom = vi.spyOn(EventGzip.prototype, 'encode');
    try {
      const check = (buf: EventBuffer): Buffer => {
        const out = enc.encode('', buf);
        expect(gunzipSync(out).equals(text(buf, ctx))).toBe(true);
        return out;
      };
      // The first batch is measured both ways: the hand-written encoder loses, zlib's member is written.
      const l1 = losingBatch(interner, 1);
      const own = new EventGzip(ctx, 1).encode('', l1).length;
      expect(own).toBeGreaterThan(1.2 * gz1(l1, ctx));
      custom.mockClear();
      expect(check(l1).length).toBe(gz1(l1, ctx));
      expect(stats.counts()).toMatchObject({ sampled: 1, zlib: 1, custom: 0 });
      // The next batch like it is not measured: zlib writes it, the hand-written encoder is not even run.
      custom.mockClear();
      const l2 = losingBatch(interner, 2);
      expect(check(l2).length).toBe(gz1(l2, ctx));
      expect(custom).not.toHaveBeenCalled();
      expect(stats.counts()).toMatchObject({ sampled: 1, zlib: 2, custom: 0 });
      // A batch of another make-up (one kind, no new text) is measured again: the hand-written encoder wins and keeps the batches.
      const w1 = batch(interner, 0, false);
      expect(check(w1).length).toBeLessThan(0.9 * gz1(w1, ctx));
      const w2 = batch(interner, 2000, false);
      expect(check(w2).length).toBeLessThan(0.9 * gz1(w2, ctx));
      expect(stats.counts()).toMatchObject({ sampled: 2, zlib: 2, custom: 2, fallbacks: 0 });
    } finally {
      custom.mockRestore();
    }
  });

  it('measures again after 32 batches, then half as often while the verdict holds', () => {
    const { interner, ctx } = setup();
    const stats = new EncoderStats();
    const enc = new BatchEncoder(ctx, encoding(1), stats);
    let sizes = 0;
    let zlibSizes = 0;
    const sampledAt: number[] = [];
    for (let b = 0; b < 100; b++) {
      const buf = batch(interner, b * 2000, false);
      const before = stats.counts().sampled;
      sizes += enc.encode('', buf).length;
      zlibSizes += gz1(buf, ctx);
      if (stats.counts().sampled > before) sampledAt.push(b);
    }
    expect(sampledAt).toEqual([0, 32, 96]);
    expect(stats.counts()).toMatchObject({ custom: 100, zlib: 0 });
    expect(sizes).toBeLessThan(zlibSizes);
  });

  it('where zlib keeps winning, a later measurement encodes only a slice of the batch by hand', () => {
    const { interner, ctx } = setup();
    const stats = new EncoderStats();
    const enc = new BatchEncoder(ctx, encoding(1), stats);
    const custom = vi.spyOn(EventGzip.prototype, 'encode');
    try {
      for (let b = 0; b < 34; b++) {
        const buf = losingBatch(interner, b + 1);
        expect(enc.encode('', buf).length, `batch ${b}`).toBe(gz1(buf, ctx));
      }
      // The first batch measured whole, the later ones (the 33rd; and one whose strings no longer
      // fit the interner, a drift) by their first 512 events alone: zlib kept them all.
      const counts = custom.mock.calls.map((c) => (c[1] as EventBuffer).count);
      expect(counts[0]).toBe(2000);
      expect(counts.length).toBeGreaterThanOrEqual(2);
      expect(counts.slice(1).every((n) => n === 512)).toBe(true);
      expect(stats.counts()).toMatchObject({ sampled: counts.length, zlib: 34, custom: 0 });
    } finally {
      custom.mockRestore();
    }
  });

  it('forced zlib (DFTRACER_GZIP_ENCODER=zlib) writes zlib’s member at the level asked, and never runs the hand-written encoder', () => {
    const custom = vi.spyOn(EventGzip.prototype, 'encode');
    try {
      for (const level of [1, 4]) {
        const { interner, ctx } = setup();
        const stats = new EncoderStats();
        const enc = new BatchEncoder(ctx, encoding(level, 'zlib'), stats);
        for (const b of [0, 1, 2]) {
          const buf = batch(interner, b * 2000, false);
          expect(enc.encode('', buf).equals(gzipSync(text(buf, ctx), { level }))).toBe(true);
        }
        expect(stats.counts()).toMatchObject({ zlib: 3, custom: 0, sampled: 0 });
      }
      expect(custom).not.toHaveBeenCalled();
    } finally {
      custom.mockRestore();
    }
  });

  it('custom (no guard) keeps the hand-written encoder even where it loses, and never measures', () => {
    const { interner, ctx } = setup();
    const stats = new EncoderStats();
    const enc = new BatchEncoder(ctx, encoding(1, 'custom'), stats);
    const l1 = losingBatch(interner, 1);
    expect(enc.encode('', l1).length).toBeGreaterThan(gz1(l1, ctx));
    expect(stats.counts()).toMatchObject({ custom: 1, zlib: 0, sampled: 0 });
  });

  it('counts a batch the hand-written encoder fails on and tells the first error once', () => {
    const { interner, ctx } = setup();
    const stats = new EncoderStats();
    const told: string[] = [];
    const enc = new BatchEncoder(ctx, encoding(1, 'custom'), stats, (m) => told.push(m));
    const spy = vi.spyOn(EventGzip.prototype, 'encode').mockImplementation(() => {
      throw new RangeError('invalid DEFLATE match: 2 bytes 229 back');
    });
    try {
      for (const b of [0, 1]) {
        const buf = batch(interner, b * 2000, false);
        expect(gunzipSync(enc.encode('', buf)).equals(text(buf, ctx))).toBe(true);
      }
    } finally {
      spy.mockRestore();
    }
    expect(stats.counts()).toMatchObject({ fallbacks: 2, zlib: 2, custom: 0 });
    expect(told).toEqual(['the gzip encoder failed on a batch (invalid DEFLATE match: 2 bytes 229 back); it was written by zlib']);
  });

  it('every path’s output reads back as the plain formatter’s text', () => {
    for (const gzipEncoder of ['auto', 'custom', 'zlib'] as const) {
      for (const level of [1, 2, 6, 9]) {
        const { interner, ctx } = setup();
        const enc = new BatchEncoder(ctx, encoding(level, gzipEncoder));
        const batches = [losingBatch(interner, 1), batch(interner, 0, false), batch(interner, 2000, true), losingBatch(interner, 2), batch(interner, 4000, false)];
        for (const [k, buf] of batches.entries()) {
          const meta = k === 0 ? '{"name":"FH","cat":"dftracer","pid":4242,"tid":4242,"ph":"M","args":{"hhash":"x","name":"/d","value":"y"}}\n' : '';
          expect(gunzipSync(enc.encode(meta, buf)).toString(), `${gzipEncoder}, level ${level}, batch ${k}`).toBe(formattedText(meta, buf, ctx).toString());
        }
      }
    }
  });
});
