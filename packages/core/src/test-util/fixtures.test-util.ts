/** Trace fixtures shared by the format and encoder tests. */

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

/** The first timestamp of the bench event sets (µs). */
const BENCH_T0 = 1760934170173819;

/**
 * `lines` POSIX reads for the encoder benches: 64 files read one after another in 4 KiB steps,
 * durations 2–61 µs (mostly short) and gaps of 1–8 µs between reads.
 */
export function* posixReads(lines: number): Generator<{ id: number; ts: number; dur: number; fhash: string; offset: number }> {
  const r = rng(1);
  const perFile = Math.ceil(lines / 64);
  let ts = BENCH_T0;
  for (let i = 0; i < lines; i++) {
    const dur = 2 + Math.floor(r() * r() * 60);
    ts += dur + 1 + Math.floor(r() * 8);
    yield { id: i + 1, ts, dur, fhash: FH[Math.floor(i / perFile)]!, offset: (i % perFile) * 4096 };
  }
}

/** `lines` dftFn-style calls for the encoder benches: `load`, `step` (a child of that load), `save`. */
export function* fnCalls(lines: number): Generator<{ id: number; name: string; ts: number; dur: number; level: number; pidx: number }> {
  const r = rng(2);
  let ts = BENCH_T0;
  for (let i = 0; i < lines; i++) {
    const dur = Math.floor(r() * r() * 200);
    ts += dur + 1 + Math.floor(r() * 4);
    const child = i % 3 === 1;
    yield { id: i + 1, name: ['load', 'step', 'save'][i % 3]!, ts, dur, level: child ? 2 : 1, pidx: child ? i : -1 };
  }
}
