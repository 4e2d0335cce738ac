import { describe, expect, it } from 'vitest';
import { EventBuffer } from '../recording/event-buffer.js';
import { Interner } from '../recording/interner.js';
import { EventBytes } from './event-bytes.js';
import { MAX_EVENT_BYTES } from './line-format.js';
import { formatContext, formattedText } from '../test-util/format.test-util.js';
import { rng } from '../test-util/fixtures.test-util.js';
import type { ArgValue } from '../types.js';

const META = '{"id":0,"name":"PR","cat":"dftracer","pid":9,"tid":9,"ph":"M","args":{"hhash":"00000000000000aa","name":"é \u{1F600}","value":"x"}}\n';
const WEIRD = ['back\\slash', 'quo"te', 'q"b\\n', '\n\t\u0001\u001f', '\u007f del', 'lone \ud800 high', 'lone \udc00 low', 'end \ud83d', '€ ü 中', '\u{1F600} pair', ''];

function setup(incMetadata = true) {
  const interner = new Interner(9);
  const cuts: number[] = [];
  const ctx = formatContext(interner, { incMetadata, hostHash: '00000000000000aa', onTruncated: (n) => cuts.push(n) });
  return { interner, ctx, cuts };
}

/** Events with every arg tag and value the formatter treats apart, and fixed fields at their edges. */
function everyValue(interner: Interner, round: number): EventBuffer {
  const buf = new EventBuffer(64);
  const k = interner.kind(`name ${round} "q" €`, 'cat\n');
  const args = {
    int: 42, neg: -7, frac: 1.5, tiny: -2.25e-7, big: 1e21, unsafe: 2 ** 53 + 2, nan: NaN, inf: Infinity, ninf: -Infinity, negz: -0,
    s: 'short', long: `${'x'.repeat(100)}${round}`, longUni: `é${'ü'.repeat(90)}\u{1F600}`, longEsc: `"${'\\'.repeat(70)}\n`,
    t: true, f: false, nul: null, undef: undefined, bi: 12n, hugeBi: 2n ** 80n, obj: { a: [1, 'b'], é: '\u{1F600}' },
  };
  buf.push(k, 1, 9, 1760934170173819, 12, 2, -1, args, interner);
  WEIRD.forEach((w, n) => buf.push(k, 2 + n, 9, 1760934170173820 + n, n, 1, 1, { w, long: w.repeat(20) + 'y'.repeat(70) }, interner));
  // The fixed fields at their edges (set in the columns: the recording path would clamp some).
  const edges: Array<[number, number, number, number, number]> = [
    [-5, -1, 0, -0, -3],
    [2 ** 53 + 8, 2 ** 31, 999999, 1.25, 2 ** 40],
    [1e21, 4.5, 1000000, NaN, NaN],
    [3, 3, NaN, 1, 1],
    [4, 4, -Infinity, 1, 1],
    [Number.MAX_SAFE_INTEGER, 0, 1.5, Infinity, -Infinity],
    [0, 123456789012, -1760934170173819, 2 ** 53 - 1, 0],
    [7, 7, 1e300, 5e-324, 1],
  ];
  for (const [id, tid, ts, dur, pidx] of edges) {
    const i = buf.count;
    buf.push(k, 1, 9, 1, 1, 1, 1, { n: i }, interner);
    buf.id[i] = id;
    buf.tid[i] = tid;
    buf.ts[i] = ts;
    buf.dur[i] = dur;
    buf.pidx[i] = pidx;
  }
  // Oversize lines: one long string of ASCII, one under 16 Ki units but over 16 KiB as UTF-8,
  // one object, and one whose args together (not any one) pass the limit.
  buf.push(k, 90, 9, 1760934170173900, 1, 1, -1, { big: 'a'.repeat(MAX_EVENT_BYTES + 10), after: 1 }, interner);
  buf.push(k, 91, 9, 1760934170173901, 1, 1, -1, { wide: '€'.repeat(6000) }, interner);
  buf.push(k, 92, 9, 1760934170173902, 1, 1, -1, { obj: { list: Array.from({ length: 4000 }, (_, n) => n) } }, interner);
  buf.push(k, 93, 9, 1760934170173903, 1, 1, -1, { a: 'b'.repeat(9000), c: 'd'.repeat(9000) }, interner);
  buf.push(interner.kind('after cut', 'c'), 94, 9, 1760934170173904, 1, 1, -1, { ok: 'fine' }, interner);
  return buf;
}

describe('EventBytes', () => {
  it('writes byte for byte what formatEvents writes, every arg tag, escape and edge value, cut lines included', () => {
    for (const incMetadata of [true, false]) {
      const { interner, ctx, cuts } = setup(incMetadata);
      const bytes = new EventBytes(ctx, 16); // grows many times
      const buf = everyValue(interner, 0);
      const want = formattedText(META, buf, ctx);
      expect(Buffer.from(bytes.format(META, buf)).toString()).toBe(want.toString());
      expect(bytes.format(META, buf).equals(want), `incMetadata ${incMetadata}`).toBe(true);
      // Cuts are told once per call that had any (and not when a caller asks for quiet).
      expect(cuts).toEqual(incMetadata ? [4, 4] : []);
      bytes.format('', buf, false);
      expect(cuts.length).toBe(incMetadata ? 2 : 0);
    }
  });

  it('keeps up with the interner between batches: new kinds, keys and strings, and a redefined kind slot', () => {
    const { interner, ctx } = setup();
    const bytes = new EventBytes(ctx);
    for (let round = 0; round < 3; round++) {
      const buf = everyValue(interner, round);
      // Transient kinds, 200 a round: past the ring's 256 slots, later ones redefine the slots of
      // kinds written in an earlier round.
      const transient = new EventBuffer(256);
      for (let n = 0; n < 200; n++) {
        const k = interner.transientKind(`t${round}_${n}`, 'ring', round);
        expect(k).toBeGreaterThanOrEqual(0);
        transient.push(k, 100 + n, 9, 1760934170174000 + n, n, 1, -1, { [`key${round}_${n % 5}`]: `v${n}` }, interner);
      }
      expect(bytes.format('', transient).equals(formattedText('', transient, ctx)), `round ${round}, transient kinds`).toBe(true);
      expect(bytes.format('', buf).equals(formattedText('', buf, ctx)), `round ${round}`).toBe(true);
    }
  });

  it('writes fragments and values of every length (each word padding) as the buffer grows line by line', () => {
    const { interner, ctx } = setup();
    const bytes = new EventBytes(ctx, 16);
    const r = rng(23);
    const first: EventBuffer[] = [];
    const text = (n: number): string => 'abcdefghijklmnopqrstuvwxyz'.repeat(6).slice(0, n);
    for (let batch = 0; batch < 4; batch++) {
      const buf = new EventBuffer(512);
      for (let n = 0; n < 512; n++) {
        const k = interner.kind(text(1 + Math.floor(r() * 13)), text(1 + Math.floor(r() * 5)));
        const args: Record<string, ArgValue> = {};
        for (let a = Math.floor(r() * r() * 24); a > 0; a--) {
          const v = r();
          args[text(1 + Math.floor(r() * 13))] = v < 0.3 ? Math.floor(v * 1e9) : v < 0.5 ? text(Math.floor(r() * 90)) : v < 0.6 ? v : v < 0.7 ? v < 0.65 : v < 0.8 ? { k: text(Math.floor(r() * 9)) } : null;
        }
        buf.push(k, n, Math.floor(r() * 1e6), 1760934170173819 + n, Math.floor(r() * 1e5), 1 + (n % 3), n - 1, args, interner);
      }
      expect(bytes.format(batch === 0 ? META : '', buf).equals(formattedText(batch === 0 ? META : '', buf, ctx)), `batch ${batch}`).toBe(true);
      if (batch === 0) first.push(buf);
    }
    // The first grow at every offset of the first lines: the room asked for covers each write.
    const want = formattedText('', first[0]!, ctx);
    for (let size = 64; size < 1600; size++) expect(new EventBytes(ctx, size).format('', first[0]!).equals(want), `size ${size}`).toBe(true);
  });

  it('reads back as the JSON it stands for', () => {
    const { interner, ctx } = setup();
    const buf = everyValue(interner, 0);
    const lines = new EventBytes(ctx).format('', buf).toString().split('\n').slice(0, -1);
    expect(lines.length).toBe(buf.count);
    for (const l of lines) expect(Buffer.byteLength(l) + 1).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    const first = JSON.parse(lines[0]!);
    expect(first.args).toMatchObject({ int: 42, frac: 1.5, nan: 'NaN', negz: 0, obj: { a: [1, 'b'], é: '\u{1F600}' }, hugeBi: '1208925819614629174706176' });
    expect(lines.slice(1, 1 + WEIRD.length).map((l) => JSON.parse(l).args.w)).toEqual(WEIRD); // lone surrogates escaped, not lost
  });
});
