/**
 * The TensorFlow.js backend of the examples, obtained as a program would: `loadTf()` (from
 * @dftracer/tfjs; @dftracer/ai re-exports it with the compute hooks) takes the best present —
 * CUDA, native, WebAssembly (given the kernels it lacks to train conv nets), plain JavaScript —
 * and hands the namespace to the integrations. DFTRACER_EXAMPLES_BACKEND=wasm (or cpu,
 * tfjs-node, tfjs-node-gpu) forces one.
 */
import { loadTf, type CandidateName, type LoadedTf } from '@dftracer/tfjs';

/** What each device runs on, for people. */
const DESCRIBE = {
  'tfjs-node-gpu': 'CUDA through @tensorflow/tfjs-node-gpu',
  'tfjs-node': 'native libtensorflow through @tensorflow/tfjs-node',
  wasm: 'WebAssembly (SIMD) through @tensorflow/tfjs-backend-wasm',
  cpu: 'plain JavaScript (@tensorflow/tfjs cpu backend)',
} as const;

/** `prefer` for loadTf from DFTRACER_EXAMPLES_BACKEND, or undefined for loadTf's own order. */
export function preferred(value = process.env.DFTRACER_EXAMPLES_BACKEND): CandidateName[] | undefined {
  return value === undefined || value === '' ? undefined : [value as CandidateName];
}

/** Loads the best backend present, or the one DFTRACER_EXAMPLES_BACKEND names. */
export function loadBackend(): Promise<LoadedTf> {
  return loadTf({ prefer: preferred() });
}

/** After `loadTf()`: in a line, what was chosen, what was passed over and which kernels were added. */
export function readyForTraining(loaded: LoadedTf): string {
  const what = loaded.device === 'cuda' ? DESCRIBE['tfjs-node-gpu'] : loaded.backend === 'tensorflow' ? DESCRIBE['tfjs-node'] : loaded.backend === 'wasm' ? DESCRIBE.wasm : DESCRIBE.cpu;
  const skipped = loaded.skipped.map((s) => `${s.package.replace('@tensorflow/', '')}: ${s.reason}`).join('; ');
  const added = loaded.addedKernels.length > 0 ? `, added ${loaded.addedKernels.join(', ')}` : '';
  return `${loaded.backend}: ${what}${added}${skipped ? ` (passed over ${skipped})` : ''}`;
}
