/**
 * In-place ascending sort of non-negative integers (below 2^53) held in a Float64Array: an LSD
 * radix sort on 16-bit digits, as many passes as the largest value needs. Trace times are µs
 * integers; a summary sorts tens of millions of them, where this runs several times faster than
 * `Float64Array.prototype.sort` (measured: 10 M values spanning 2^30 in 2 passes).
 */
const RADIX = 1 << 16;
const counts = new Uint32Array(RADIX);

/** Sort `a` (integers ≥ 0, < 2^53) using `tmp` (at least as long) as scratch. */
export function sortIntegers(a: Float64Array, tmp: Float64Array = new Float64Array(a.length)): Float64Array {
  const n = a.length;
  if (n < 2) return a;
  if (tmp.length < n) throw new RangeError(`sortIntegers: scratch of ${tmp.length} values for ${n}`);
  let max = 0;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (!(v >= 0 && v <= Number.MAX_SAFE_INTEGER) || v !== Math.floor(v)) throw new RangeError(`sortIntegers: ${v} is not an integer in [0, 2^53)`);
    if (v > max) max = v;
  }
  if (n < 256) return a.sort();
  let src = a;
  let dst = tmp.subarray(0, n);
  // ToInt32 keeps a double's integer part modulo 2^32, so `(v / 2^k) & 0xffff` is digit k/16 of v
  for (let scale = 1; scale <= max; scale *= RADIX) {
    counts.fill(0);
    if (scale === 1) for (let i = 0; i < n; i++) counts[src[i]! & 0xffff]!++;
    else for (let i = 0; i < n; i++) counts[(src[i]! / scale) & 0xffff]!++;
    let sum = 0;
    for (let d = 0; d < RADIX; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    if (scale === 1) for (let i = 0; i < n; i++) dst[counts[src[i]! & 0xffff]!++] = src[i]!;
    else
      for (let i = 0; i < n; i++) {
        const v = src[i]!;
        dst[counts[(v / scale) & 0xffff]!++] = v;
      }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== a) a.set(src);
  return a;
}
