import { getTracer } from '@dftracer/core';
import type { CandidateInfo } from './candidate.js';

/** What loadTf reports: the `tfjs` CM record and the INFO line are written here only. */
export interface LoadReport {
  readonly tf: { readonly version?: unknown };
  readonly package: string;
  /** The active backend: `tensorflow` (tfjs-node, -gpu), `webgpu`, `wasm` or `cpu`. */
  readonly backend: string;
  readonly device: string;
  /** Each candidate passed over on the way, with the reason. */
  readonly skipped: readonly { readonly candidate: string; readonly package: string; readonly reason: string }[];
  /** Kernels `loadTf` added to the backend so it can train (wasm: see `registerWasmConvGrad`); empty if none. */
  readonly addedKernels: readonly string[];
  /** What the candidate said about its device besides these fields (also in the `tfjs` CM record). */
  readonly info?: CandidateInfo;
}

/** Writes the `tfjs` CM record and says at INFO what was loaded (nothing with tracing off). */
export function report(r: LoadReport): void {
  const t = getTracer();
  if (t === null) return;
  const version = (r.tf.version as Record<string, string> | undefined)?.['tfjs-core'] ?? '';
  t.metadata('tfjs', { package: r.package, backend: r.backend, device: r.device, version, skipped: r.skipped, added_kernels: r.addedKernels, ...r.info });
  const added = r.addedKernels.length > 0 ? `, added kernels ${r.addedKernels.join(', ')}` : '';
  const info = r.info === undefined ? '' : Object.entries(r.info).map(([k, v]) => `, ${k} ${String(v)}`).join('');
  const skipped = r.skipped.length > 0 ? ` (skipped ${r.skipped.map((s) => `${s.candidate}: ${s.reason}`).join('; ')})` : '';
  t.log('INFO', `tfjs: ${r.package} ${version}, backend ${r.backend}, device ${r.device}${info}${added}${skipped}`);
}
