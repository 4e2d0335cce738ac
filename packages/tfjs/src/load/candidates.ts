import type { Candidate } from './candidate.js';
import { cpu } from './cpu.js';
import { tfjsNode } from './tfjs-node.js';
import { tfjsNodeGpu } from './tfjs-node-gpu.js';
import { wasm } from './wasm.js';

/**
 * Every way loadTf can obtain tfjs, in its default order (best first). A new backend is one
 * module exporting a `Candidate` and one line here; names, packages and devices of `LoadedTf`
 * follow from this table.
 */
export const CANDIDATES = {
  'tfjs-node-gpu': tfjsNodeGpu,
  'tfjs-node': tfjsNode,
  wasm,
  cpu,
} as const satisfies Record<string, Candidate>;

export type CandidateName = keyof typeof CANDIDATES;
type Loaded = Awaited<ReturnType<(typeof CANDIDATES)[CandidateName]['load']>>;
/** The package a namespace can come from. */
export type TfPackage = Loaded['package'];
/** Where kernels can run: `cuda`, `cpu` (libtensorflow or pure JS), `wasm`. */
export type TfDevice = Loaded['device'];

export const CANDIDATE_NAMES = Object.keys(CANDIDATES) as CandidateName[];

export function isCandidateName(v: unknown): v is CandidateName {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(CANDIDATES, v);
}
