import { warnOnce } from '@dftracer/core';
import { useTfNamespace } from '../namespace.js';
import type { Tf } from '../tf.js';
import { reasonOf, type CandidateInfo, type CandidateResult } from './candidate.js';
import { CANDIDATES, type TfDevice, type TfPackage } from './candidates.js';
import { checkOptions, type LoadTfOptions } from './options.js';
import { report } from './report.js';

/** What `loadTf()` got. */
export interface LoadedTf {
  readonly tf: Tf;
  /** The package the namespace came from. */
  readonly package: TfPackage;
  /** The active backend: `tensorflow` (tfjs-node, -gpu), `wasm` or `cpu`. */
  readonly backend: string;
  /** Where kernels run: `cuda` (tfjs-node-gpu on a GPU), `cpu` (libtensorflow, or pure JS), `wasm`. */
  readonly device: TfDevice;
  /** Each candidate passed over on the way, with the reason. */
  readonly skipped: readonly { readonly package: string; readonly reason: string }[];
  /** Kernels `loadTf` added to the backend so it can train (wasm: see `registerWasmConvGrad`); empty if none. */
  readonly addedKernels: readonly string[];
  /** What the candidate said about its device besides these fields (also in the `tfjs` CM record). */
  readonly info?: CandidateInfo;
}

/**
 * Loads the best TensorFlow.js present: `@tensorflow/tfjs-node-gpu` (CUDA), then
 * `@tensorflow/tfjs-node`, then `@tensorflow/tfjs` on the wasm backend
 * (`@tensorflow/tfjs-backend-wasm`, given the kernels it lacks to train conv nets unless
 * `wasmTraining: false`), then its cpu backend. Reports what it got in a `CM` record (`tfjs`) and
 * at INFO, and hands the namespace to the integrations (`useTfNamespace`).
 */
export async function loadTf(options?: LoadTfOptions): Promise<LoadedTf> {
  const o = checkOptions(options);
  const skipped: { package: string; reason: string }[] = [];
  const ctx = { from: o.from, wasmTraining: o.wasmTraining, options: o.all, warn: (m: string) => warnOnce(`loadTf:${m}`, m) };
  for (const name of o.prefer) {
    const candidate = CANDIDATES[name];
    let got: CandidateResult<TfPackage, TfDevice>;
    try {
      got = await candidate.load(ctx);
    } catch (e) {
      skipped.push({ package: candidate.package, reason: reasonOf(e) });
      continue;
    }
    const result: LoadedTf = { ...got, skipped };
    report(result);
    useTfNamespace(result.tf);
    return result;
  }
  throw new Error(`loadTf: no TensorFlow.js could be loaded (${skipped.map((s) => `${s.package}: ${s.reason}`).join('; ')}); install @tensorflow/tfjs`);
}
