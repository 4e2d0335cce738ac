/** Trace-text fixtures shared by the line-gzip tests and `bench/line-gzip.bench.mjs`. */

/** A deterministic PRNG so failures and benchmark inputs reproduce. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A host hash, and 64 file hashes, shaped as the tracer writes them (16 hex digits). */
export const HH = 'f9ff883caaf21863';
export const FH = Array.from({ length: 64 }, (_, k) =>
  (0x457466652c169c22n + BigInt(k) * 0x9e3779b97f4a7c15n).toString(16).slice(-16).padStart(16, '0'),
);
