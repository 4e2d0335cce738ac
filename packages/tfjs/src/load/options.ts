import { CANDIDATES, CANDIDATE_NAMES, isCandidateName, type CandidateName } from './candidates.js';
import type { Candidate } from './candidate.js';

/** loadTf's options. */
export interface LoadTfOptions {
  /**
   * Candidates in order; default `['tfjs-node-gpu', 'tfjs-node', 'wasm', 'cpu']`: CUDA first, then
   * libtensorflow on the CPU, then pure tfjs on the wasm backend, then its cpu backend.
   */
  prefer?: readonly CandidateName[];
  /** Resolve packages from here, a path or file URL (default: this package, then the working directory). */
  from?: string;
  /**
   * When wasm is chosen, add the kernels it lacks to train conv nets (`registerWasmConvGrad`);
   * default `true`. `false` leaves the backend as tfjs ships it.
   */
  wasmTraining?: boolean;
}

const OWN = (Object.values(CANDIDATES) as Candidate[]).flatMap((c) => (c.option === undefined ? [] : [c.option]));
const KEYS = ['prefer', 'from', 'wasmTraining', ...OWN.map((o) => o.key)];
const expected = () => CANDIDATE_NAMES.map((n) => `'${n}'`).join(' | ');

/** The options checked, with defaults: every error names the option at fault. */
export function checkOptions(options: unknown): { prefer: readonly CandidateName[]; from: string | undefined; wasmTraining: boolean; all: Readonly<Record<string, unknown>> } {
  if (options === undefined) return { prefer: CANDIDATE_NAMES, from: undefined, wasmTraining: true, all: {} };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`loadTf: options must be an object; got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  const o = options as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!KEYS.includes(k)) throw new TypeError(`loadTf: unknown option ${JSON.stringify(k)}; expected ${KEYS.join(', ')}`);
  }
  let prefer: readonly CandidateName[] = CANDIDATE_NAMES;
  if (o.prefer !== undefined) {
    if (!Array.isArray(o.prefer) || o.prefer.length === 0) throw new TypeError(`loadTf: prefer must be a non-empty array of ${expected()}`);
    o.prefer.forEach((c: unknown, i: number) => {
      if (!isCandidateName(c)) throw new TypeError(`loadTf: prefer[${i}] is an unknown candidate ${JSON.stringify(c)}; expected ${expected()}`);
      if (o.prefer !== undefined && (o.prefer as unknown[]).indexOf(c) !== i) throw new TypeError(`loadTf: prefer[${i}] repeats ${JSON.stringify(c)}`);
    });
    prefer = o.prefer as CandidateName[];
  }
  if (o.from !== undefined && (typeof o.from !== 'string' || o.from === '')) throw new TypeError(`loadTf: from must be a path or file URL string; got ${typeof o.from}`);
  if (o.wasmTraining !== undefined && typeof o.wasmTraining !== 'boolean') throw new TypeError(`loadTf: wasmTraining must be a boolean; got ${typeof o.wasmTraining}`);
  for (const own of OWN) if (o[own.key] !== undefined) own.check(o[own.key]);
  return { prefer, from: o.from as string | undefined, wasmTraining: o.wasmTraining !== false, all: o };
}
