/**
 * The fuzz generator, as module source: the fuzz test runs it inside a traced program and again in
 * the test to know what was written; the event encoder's test feeds its events straight in.
 */
export const GENERATOR = `
export function generator(seed) {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[int(a.length)];
  const ATOMS = ['"', '\\\\', '\\n', '\\r', '\\t', '\\b', '\\f', '\\u0000', '\\u0001', '\\u001f', '\\u007f', '\\u0085', '\\u2028', '\\u2029',
    '\\ud800', '\\udbff', '\\udc00', '\\udfff', '😀', 'é', '中', '\\ufeff', '\\uffff', '</script>', '{"x":1}', ',', ':', '[', ']', 'a', 'Z', '0', ' ', '%s', '\${x}', '…'];
  const text = (len) => {
    let out = '';
    while (out.length < len) out += rnd() < 0.6 ? pick(ATOMS) : String.fromCharCode(int(0x10000));
    return out;
  };
  const str = (max) => text(rnd() < 0.02 ? 4000 + int(30000) : int(max));
  const KEYS = ['', '__proto__', 'constructor', 'toString', 'level', 'p_idx', 'hhash', 'args', 'id', 'name', '0', '-1', '1e3'];
  const key = () => (rnd() < 0.1 ? pick(KEYS) : rnd() < 0.01 ? text(1000 + int(2000)) : text(1 + int(10)));
  const NUMS = [NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 123456789.123];
  const BIGS = [0n, 1n, -1n, 2n ** 53n - 1n, -(2n ** 53n - 1n), 2n ** 53n, -(2n ** 53n), 2n ** 64n, -(10n ** 30n)];
  function value(depth) {
    const r = rnd();
    if (r < 0.3) return str(40);
    if (r < 0.45) return rnd() < 0.5 ? pick(NUMS) : (rnd() - 0.5) * 10 ** int(12);
    if (r < 0.52) return pick(BIGS);
    if (r < 0.56) return rnd() < 0.5;
    if (r < 0.59) return null;
    if (r < 0.62) return undefined;
    if (r < 0.64) return rnd() < 0.5 ? function fuzzed() {} : Symbol(text(3));
    if (depth >= 3) return str(10);
    if (r < 0.8) {
      const o = Object.fromEntries(Array.from({ length: int(4) }, () => [key(), value(depth + 1)]));
      const k = rnd();
      if (k < 0.1) o.self = o; // a cycle
      else if (k < 0.2) { const shared = { v: str(5) }; o.a = shared; o.b = [shared, shared]; } // shared, not cyclic
      else if (k < 0.25) o.when = new Date(Date.UTC(2020, 1, 2, 3, 4, 5, 6));
      else if (k < 0.28) o.map = new Map([[1, 2]]);
      else if (k < 0.3) o.bad = { toJSON() { throw new Error('no'); } };
      return o;
    }
    const a = Array.from({ length: int(5) }, () => value(depth + 1));
    if (rnd() < 0.05) a.push(a);
    return a;
  }
  return {
    event() {
      const name = rnd() < 0.01 ? text(1500) : text(int(20));
      const cat = rnd() < 0.01 ? text(1500) : text(int(8));
      const entries = Array.from({ length: int(6) }, () => [key(), value(0)]);
      return { name, cat, args: Object.fromEntries(entries) };
    },
    metadata() {
      return { key: rnd() < 0.01 ? text(2000) : text(int(12)), value: rnd() < 0.5 ? str(60) : value(0) };
    },
  };
}
`;

/** What `generator(seed)` returns. */
export interface FuzzGenerator {
  event(): { name: string; cat: string; args: Record<string, unknown> };
  metadata(): { key: string; value: unknown };
}
