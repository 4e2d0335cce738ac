import { getTracer } from '@dftracer/core';
import type { CandidateInfo } from './candidate.js';

/** What loadTf reports: the `tfjs` CM record and the INFO line are written here only. */
export interface LoadReport {
  readonly tf: { readonly version?: unknown };
  readonly package: string;
  readonly backend: string;
  readonly device: string;
  readonly skipped: readonly { readonly package: string; readonly reason: string }[];
  readonly addedKernels: readonly string[];
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
  const skipped = r.skipped.length > 0 ? ` (skipped ${r.skipped.map((s) => `${s.package}: ${s.reason}`).join('; ')})` : '';
  t.log('INFO', `tfjs: ${r.package} ${version}, backend ${r.backend}, device ${r.device}${info}${added}${skipped}`);
}
