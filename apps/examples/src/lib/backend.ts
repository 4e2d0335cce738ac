/**
 * The TensorFlow.js backend of the examples. The ones built on @dftracer/ai use its `loadTf()` and
 * `readyForTraining()` below; the dynamo and profiler examples use `pickBackend()`, the same order
 * (CUDA, native, WebAssembly, plain JavaScript) set by hand, as a program that does not use
 * `loadTf` would, with @dftracer/ai's `registerWasmConvGrad` so conv nets train on wasm.
 */
import * as tf from '@tensorflow/tfjs';
import { registerWasmConvGrad, type LoadedTf } from '@dftracer/ai';

export interface BackendChoice {
  /** tfjs backend name: tensorflow, wasm or cpu. */
  name: string;
  /** What it runs on, for people. */
  description: string;
}

/** What each choice runs on, for people. */
const DESCRIBE = {
  'tfjs-node-gpu': 'CUDA through @tensorflow/tfjs-node-gpu',
  'tfjs-node': 'native libtensorflow through @tensorflow/tfjs-node',
  wasm: 'WebAssembly (SIMD) through @tensorflow/tfjs-backend-wasm',
  cpu: 'plain JavaScript (@tensorflow/tfjs cpu backend)',
} as const;

async function tryImport(pkg: string): Promise<boolean> {
  try {
    await import(pkg);
    return true;
  } catch {
    return false;
  }
}

/** Loads and selects the best backend present; `prefer` (or DFTRACER_EXAMPLES_BACKEND) forces one. */
export async function pickBackend(prefer = process.env.DFTRACER_EXAMPLES_BACKEND): Promise<BackendChoice> {
  const candidates: [string, () => Promise<boolean>, string][] = [
    ['tensorflow', () => tryImport('@tensorflow/tfjs-node-gpu'), DESCRIBE['tfjs-node-gpu']],
    ['tensorflow', () => tryImport('@tensorflow/tfjs-node'), DESCRIBE['tfjs-node']],
    ['wasm', () => tryImport('@tensorflow/tfjs-backend-wasm'), DESCRIBE.wasm],
    ['cpu', async () => true, DESCRIBE.cpu],
  ];
  for (const [name, load, description] of candidates) {
    if (prefer && prefer !== name) continue;
    if (!(await load())) continue;
    if (name === 'wasm') registerWasmConvGrad(tf);
    if (await tf.setBackend(name).catch(() => false)) {
      await tf.ready();
      return { name, description };
    }
  }
  throw new Error(`no usable tfjs backend${prefer ? ` named ${prefer}` : ''}`);
}

/**
 * After `loadTf()` from @dftracer/ai (which already gave wasm the kernels it lacks to train conv
 * nets): says in a line what was chosen, what was passed over and which kernels were added.
 */
export function readyForTraining(loaded: LoadedTf): string {
  const what = loaded.device === 'cuda' ? DESCRIBE['tfjs-node-gpu'] : loaded.backend === 'tensorflow' ? DESCRIBE['tfjs-node'] : loaded.backend === 'wasm' ? DESCRIBE.wasm : DESCRIBE.cpu;
  const skipped = loaded.skipped.map((s) => `${s.package.replace('@tensorflow/', '')}: ${s.reason}`).join('; ');
  const added = loaded.addedKernels.length > 0 ? `, added ${loaded.addedKernels.join(', ')}` : '';
  return `${loaded.backend}: ${what}${added}${skipped ? ` (passed over ${skipped})` : ''}`;
}
