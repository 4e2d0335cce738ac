import { CANDIDATES, CANDIDATE_NAMES, isCandidateName, type CandidateName } from './candidates.js';
import type { Tf } from '../tf.js';
import type { Candidate } from './candidate.js';
import type { WebGPULoadOptions } from './webgpu.js';
import { checkOptionKeys } from '@dftracer/core';

/** loadTf's options. */
export interface LoadTfOptions {
  /**
   * Candidates in order; default `['tfjs-node-gpu', 'webgpu', 'tfjs-node', 'wasm', 'cpu']`: CUDA
   * first, then a GPU through WebGPU (Dawn; software renderers only when `webgpu` is named here),
   * then libtensorflow on the CPU, then pure tfjs on the wasm backend, then its cpu backend.
   */
  prefer?: readonly CandidateName[];
  /** Resolve packages from here, a path or file URL (default: this package, then the working directory). */
  from?: string;
  /**
   * When wasm is chosen, add the kernels it lacks to train conv nets (`registerWasmConvGrad`);
   * default `true`. `false` leaves the backend as tfjs ships it.
   */
  wasmTraining?: boolean;
  /**
   * WebGPU through Dawn: `{ dawnOptions, featureLevel, powerPreference, importBackend }`; defaults
   * from `DFTRACER_WEBGPU_DAWN_OPTIONS` (`;`-separated) and `DFTRACER_WEBGPU_FEATURE_LEVEL`. On a
   * machine without a GPU: `{ dawnOptions: ['backend=opengles'], featureLevel: 'compatibility' }`
   * runs on Mesa (with `EGL_PLATFORM=surfaceless`).
   */
  webgpu?: WebGPULoadOptions;
  /**
   * The `@tensorflow/tfjs` namespace to set up instead of requiring it (a bundled program, which
   * has no node_modules to require from). Used by the webgpu, wasm and cpu candidates.
   */
  tf?: Tf;
}

const OWN = (Object.values(CANDIDATES) as Candidate[]).flatMap((c) => (c.option === undefined ? [] : [c.option]));
/** loadTf's option names (its README's table is tested against them). */
export const KEYS: readonly string[] = ['prefer', 'from', 'wasmTraining', 'tf', ...OWN.map((o) => o.key)];
const expected = () => CANDIDATE_NAMES.map((n) => `'${n}'`).join(' | ');

/** The options checked, with defaults: every error names the option at fault. */
export function checkOptions(options: unknown): { prefer: readonly CandidateName[]; from: string | undefined; wasmTraining: boolean; all: Readonly<Record<string, unknown>> } {
  if (options === undefined) return { prefer: CANDIDATE_NAMES, from: undefined, wasmTraining: true, all: {} };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`loadTf: options must be an object; got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  const o = options as Record<string, unknown>;
  checkOptionKeys('loadTf', o, KEYS);
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
  if (o.tf !== undefined && (o.tf === null || typeof o.tf !== 'object' || typeof (o.tf as { setBackend?: unknown }).setBackend !== 'function')) {
    throw new TypeError(`loadTf: tf must be the @tensorflow/tfjs namespace (import * as tf from '@tensorflow/tfjs'); got ${o.tf === null ? 'null' : typeof o.tf}`);
  }
  for (const own of OWN) if (o[own.key] !== undefined) own.check(o[own.key]);
  return { prefer, from: o.from as string | undefined, wasmTraining: o.wasmTraining !== false, all: o };
}
