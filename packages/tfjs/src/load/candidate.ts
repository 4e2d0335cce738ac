import type { Tf } from '../tf.js';

/** Extra facts a candidate reports in the `tfjs` CM record and the INFO line (an adapter's description…). */
export type CandidateInfo = Readonly<Record<string, string | number | boolean>>;

/** What one candidate got. */
export interface CandidateResult<P extends string = string, D extends string = string> {
  readonly tf: Tf;
  /** The package the namespace came from. */
  readonly package: P;
  /** The active backend's name. */
  readonly backend: string;
  /** Where kernels run. */
  readonly device: D;
  /** Kernels added to the backend so it can train; empty if none. */
  readonly addedKernels: readonly string[];
  readonly info?: CandidateInfo;
}

/** What a candidate gets to load with: the caller's options, already validated. */
export interface CandidateContext {
  /** Resolve packages from here (then the working directory); default this package. */
  readonly from: string | undefined;
  /** Add the kernels a backend lacks to train conv nets. */
  readonly wasmTraining: boolean;
  /** The whole options object, for a candidate's own options. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Warnings that cost a feature, not the load. */
  warn(message: string): void;
}

/**
 * One way to obtain tfjs, tried in the order of `prefer`: `load` resolves with what it got, or
 * throws why not (the message becomes the `skipped` reason; "not installed" for a missing package).
 */
export interface Candidate<P extends string = string, D extends string = string> {
  /** The package named when this candidate is passed over. */
  readonly package: P;
  /** The candidate's own option (`loadTf({ <key>: ... })`), checked before anything loads; throws naming it. */
  readonly option?: { readonly key: string; check(value: unknown): void };
  load(ctx: CandidateContext): Promise<CandidateResult<P, D>>;
}

/** The first line of why a candidate failed. */
export function reasonOf(e: unknown): string {
  const m = (e as Error)?.message ?? String(e);
  if ((e as { code?: string })?.code === 'MODULE_NOT_FOUND' && m.includes('Cannot find module')) return 'not installed';
  return m.split('\n')[0]!.slice(0, 300);
}
