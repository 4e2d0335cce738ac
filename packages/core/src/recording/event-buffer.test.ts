import { describe, expect, it } from 'vitest';
import { EventBuffer } from './event-buffer.js';
import { Interner } from './interner.js';
import { MAX_EVENT_BYTES } from '../format/line-format.js';
import { formatEvents } from '../format/format-events.js';
import { formatContext } from '../test-util/format.test-util.js';

function setup(incMetadata = true) {
  const interner = new Interner(77);
  const truncations: number[] = [];
  const ctx = formatContext(interner, { incMetadata, hostHash: '00000000000000aa', onTruncated: (n) => truncations.push(n) });
  return { interner, ctx, truncations, buf: new EventBuffer(64) };
}

const lines = (text: string) => text.split('\n').slice(0, -1);

describe('formatEvents', () => {
  it('writes the E2 field order with every kind of arg value, as JSON.parse reads it back', () => {
    const { interner, buf, ctx } = setup();
    let out = '';
    const weird = 'q"b\\n\n\t\u0001 \ud800 € \u{1F600}';
    const args = { n: 42, neg: -7, frac: 1.5, big: 1e21, nan: NaN, inf: -Infinity, negz: -0, s: 'short', long: 'x'.repeat(100), weird, t: true, f: false, nul: null, undef: undefined, bi: 12n, obj: { a: [1, 'b'] } };
    buf.push(interner.kind('na"me', 'cat\n'), 5, 77, 1760934170173819, 12, 2, -1, args, interner);
    buf.push(interner.kind('other', 'c'), 2147483648, 770001, 1760934171000000, 0, 1, 5, undefined, interner);
    out = formatEvents(buf, ctx);
    const [a, b] = lines(out).map((l) => JSON.parse(l));
    expect(Object.keys(a)).toEqual(['id', 'name', 'cat', 'pid', 'tid', 'ts', 'dur', 'ph', 'args']);
    expect(a).toMatchObject({ id: 5, name: 'na"me', cat: 'cat\n', pid: 77, tid: 77, ts: 1760934170173819, dur: 12, ph: 'X' });
    expect(a.args).toEqual({
      hhash: '00000000000000aa', level: 2, p_idx: -1,
      n: 42, neg: -7, frac: 1.5, big: 1e21, nan: 'NaN', inf: '-Infinity', negz: 0, s: 'short', long: 'x'.repeat(100),
      weird, t: true, f: false, nul: null, undef: null, bi: 12, obj: { a: [1, 'b'] },
    });
    expect(b).toEqual({ id: 2147483648, name: 'other', cat: 'c', pid: 77, tid: 770001, ts: 1760934171000000, dur: 0, ph: 'X', args: { hhash: '00000000000000aa', level: 1, p_idx: 5 } });
  });

  it('keeps small and fractional times valid JSON; a NaN duration is 0 like a negative one', () => {
    const { interner, buf, ctx } = setup();
    let out = '';
    const k = interner.kind('e', 'c');
    buf.push(k, 1, 1, 42, 1.25, 1, -1, undefined, interner);
    buf.push(k, 2, 1, 1760934170000000.5, NaN, 1, -1, undefined, interner);
    out = formatEvents(buf, ctx);
    const [a, b] = lines(out).map((l) => JSON.parse(l));
    expect([a.ts, a.dur]).toEqual([42, 1.25]);
    expect([b.ts, b.dur]).toEqual([1760934170000000.5, 0]);
  });

  it('without metadata writes no args', () => {
    const { interner, buf, ctx } = setup(false);
    let out = '';
    buf.push(interner.kind('e', 'c'), 1, 1, 1760934170000001, 3, 1, -1, { x: 1 }, interner);
    out = formatEvents(buf, ctx);
    expect(lines(out)).toEqual(['{"id":1,"name":"e","cat":"c","pid":77,"tid":1,"ts":1760934170000001,"dur":3,"ph":"X"}']);
  });

  it('cuts the string args of an event over 16 KiB and reports it once per encode', () => {
    const { interner, buf, ctx, truncations } = setup();
    let out = '';
    const k = interner.kind('e', 'c');
    buf.push(k, 1, 1, 1760934170000001, 3, 1, -1, { small: 'kept', huge: '€'.repeat(20000) }, interner);
    buf.push(k, 2, 1, 1760934170000002, 3, 1, -1, { n: 1 }, interner);
    out = formatEvents(buf, ctx);
    const written = lines(out);
    expect(Buffer.byteLength(written[0]!)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    const a = JSON.parse(written[0]!);
    expect(a.args.small).toBe('kept');
    expect(a.args.huge).toMatch(/…\[truncated \d+ chars\]$/);
    expect(JSON.parse(written[1]!).args.n).toBe(1);
    expect(truncations).toEqual([1]);
  });

  it('encodes fragments interned after an earlier encode', () => {
    const { interner, buf, ctx } = setup();
    let out = '';
    buf.push(interner.kind('first', 'c'), 1, 1, 1760934170000001, 3, 1, -1, { k: 'v1' }, interner);
    out = formatEvents(buf, ctx);
    buf.reset();
    buf.push(interner.kind('second', 'c'), 2, 1, 1760934170000002, 3, 1, -1, { k2: 'v2', k: 'v1' }, interner);
    out += formatEvents(buf, ctx);
    const [a, b] = lines(out).map((l) => JSON.parse(l));
    expect(a.name).toBe('first');
    expect(b).toMatchObject({ name: 'second', args: { k2: 'v2', k: 'v1' } });
  });
});

describe('Interner.str', () => {
  it('gives each short string one index, asked again in a row or after others', () => {
    const interner = new Interner(1);
    const a = interner.str('aaaa');
    expect(interner.str('aaaa')).toBe(a);
    const b = interner.str('bbbb');
    expect(b).not.toBe(a);
    expect(interner.str(['aa', 'aa'].join(''))).toBe(a); // equal content, another string object
    expect(interner.str('bbbb')).toBe(b);
    expect(interner.strFrag[a]).toBe('"aaaa"');
    expect(interner.str('x'.repeat(65))).toBe(-1); // too long to intern
    expect(interner.str('aaaa')).toBe(a);
  });
});

describe('EventBuffer.pushMerged', () => {
  it('writes exactly what pushArgs writes for { ...args, ...extra }, key order and overridden values included', () => {
    const { interner, buf, ctx } = setup();
    const long = 'y'.repeat(100);
    const cases: [Record<string, unknown> | undefined, Record<string, unknown>][] = [
      [{ epoch: 1, step: 2 }, { out_shape: [2, 3], out_bytes: 24, tensors_delta: 1, bytes_delta: 24 }],
      [{ epoch: 1, step: 2, tag: 't' }, { step: 300, out: long }],
      [{ a: long, b: 'x' }, { a: 'short', c: null, b: { o: 1 } }],
      [undefined, { only: 1, s: 's' }],
      [{ same: 1 }, {}],
      [{}, { hhash: 'user', n: 1 }],
    ];
    // Twice: the second round meets the interner's remembered keys and strings.
    for (let round = 0; round < 2; round++) {
      for (const [args, extra] of cases) buf.pushMerged(interner.kind('m', 'c'), 1, 2, 1, -1, args as never, extra as never, interner);
      for (const [args, extra] of cases) buf.push(interner.kind('m', 'c'), 1, 2, 3, 4, 1, -1, { ...args, ...extra } as never, interner);
    }
    const argsOf = lines(formatEvents(buf, ctx)).map((l) => JSON.stringify(JSON.parse(l).args));
    const n = cases.length;
    for (let round = 0; round < 2; round++) {
      const at = round * 2 * n;
      expect(argsOf.slice(at, at + n)).toEqual(argsOf.slice(at + n, at + 2 * n));
    }
    expect(JSON.parse(argsOf[1]!)).toEqual({ hhash: '00000000000000aa', level: 1, p_idx: -1, epoch: 1, step: 300, tag: 't', out: long });
  });

  it('keeps an args_error note, not a part of the args, when a getter of extra throws', () => {
    const { interner, buf, ctx } = setup();
    const extra = { ok: 1, get bad(): number { throw new Error('no'); } };
    buf.pushMerged(interner.kind('m', 'c'), 1, 2, 1, -1, { a: 'kept?' }, extra, interner);
    expect(JSON.parse(lines(formatEvents(buf, ctx))[0]!).args).toEqual({ hhash: '00000000000000aa', level: 1, p_idx: -1, args_error: 'the args could not be read' });
  });
});
