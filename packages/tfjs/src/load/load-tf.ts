import { warnOnce } from '@dftracer/core';
import { useTfNamespace } from '../namespace.js';
import type { Tf } from '../tf.js';
import { reasonOf, type CandidateResult } from './candidate.js';
import { CANDIDATES, type TfDevice, type TfPackage } from './candidates.js';
import { checkOptions, type LoadTfOptions } from './options.js';
import { report, type LoadReport } from './report.js';

/** What `loadTf()` got (and what its `tfjs` record says). */
export interface LoadedTf extends LoadReport {
  readonly tf: Tf;
  /** The package the namespace came from. */
  readonly package: TfPackage;
  /** Where kernels run: `cuda` (tfjs-node-gpu on a GPU), `webgpu`, `cpu` (libtensorflow, or pure JS), `wasm`. */
  readonly device: TfDevice;
}

/**
 * Loads the best TensorFlow.js present: `@tensorflow/tfjs-node-gpu` (CUDA), then a GPU through
 * WebGPU (`webgpu` + `@tensorflow/tfjs-backend-webgpu`), then `@tensorflow/tfjs-node`, then `@tensorflow/tfjs` on the wasm backend
 * (`@tensorflow/tfjs-backend-wasm`, given the kernels it lacks to train conv nets unless
 * `wasmTraining: false`), then its cpu backend. Reports what it got in a `CM` record (`tfjs`) and
 * at INFO, and hands the namespace to the integrations (`useTfNamespace`).
 */
export async function loadTf(options?: LoadTfOptions): Promise<LoadedTf> {
  const o = checkOptions(options);
  const skipped: { candidate: string; package: string; reason: string }[] = [];
  const ctx = { from: o.from, wasmTraining: o.wasmTraining, options: o.all, warn: (m: string) => warnOnce(`loadTf:${m}`, m) };
  for (const name of o.prefer) {
    const candidate = CANDIDATES[name];
    let got: CandidateResult<TfPackage, TfDevice>;
    try {
      got = await candidate.load(ctx);
    } catch (e) {
      skipped.push({ candidate: name, package: candidate.package, reason: reasonOf(e) });
      continue;
    }
    const result: LoadedTf = { ...got, skipped };
    // A candidate the program named itself and did not get is news (in the default order it is not).
    if (options?.prefer !== undefined) {
      for (const s of skipped) ctx.warn(`loadTf: ${s.candidate}, named in prefer, could not be used (${s.reason}); loaded ${name} instead`);
    }
    report(result);
    useTfNamespace(result.tf);
    return result;
  }
  throw new Error(`loadTf: no TensorFlow.js could be loaded (${skipped.map((s) => `${s.candidate}: ${s.reason}`).join('; ')}); install @tensorflow/tfjs`);
}
