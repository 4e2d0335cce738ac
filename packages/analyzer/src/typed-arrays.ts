/** Typed arrays the analyzer's scanners and sweeps fill as they go. */

export type GrowableArray = Float64Array | Int32Array | Uint32Array | Uint8Array;

/** A copy of `a` with room for `n` elements (n ≥ a.length), of the same type. */
export function grown<T extends GrowableArray>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
