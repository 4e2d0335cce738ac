type Growable = Int32Array | Float64Array | Uint8Array;

/** A copy of `a` with room for `n` elements (typed arrays cannot grow in place). */
export function grown<T extends Growable>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
