/**
 * Picks the fastest TensorFlow.js backend installed: CUDA (tfjs-node-gpu), native (tfjs-node),
 * WebAssembly, then plain JavaScript, and says which. Every example uses it.
 */
import * as tf from '@tensorflow/tfjs';
import type { LoadedTf } from '@dftracer/ai';
import { registerWasmConvGrad } from './wasm-conv-grad.js';

export interface BackendChoice {
  /** tfjs backend name: tensorflow, wasm or cpu. */
  name: string;
  /** What it runs on, for people. */
  description: string;
}

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
    ['tensorflow', () => tryImport('@tensorflow/tfjs-node-gpu'), 'CUDA through @tensorflow/tfjs-node-gpu'],
    ['tensorflow', () => tryImport('@tensorflow/tfjs-node'), 'native libtensorflow through @tensorflow/tfjs-node'],
    ['wasm', () => tryImport('@tensorflow/tfjs-backend-wasm'), 'WebAssembly (SIMD) through @tensorflow/tfjs-backend-wasm'],
    ['cpu', async () => true, 'plain JavaScript (@tensorflow/tfjs cpu backend)'],
  ];
  for (const [name, load, description] of candidates) {
    if (prefer && prefer !== name) continue;
    if (!(await load())) continue;
    if (name === 'wasm') registerWasmConvGrad();
    if (await tf.setBackend(name).catch(() => false)) {
      await tf.ready();
      return { name, description };
    }
  }
  throw new Error(`no usable tfjs backend${prefer ? ` named ${prefer}` : ''}`);
}

const DEVICES: Record<string, string> = {
  cuda: 'CUDA through @tensorflow/tfjs-node-gpu',
  wasm: 'WebAssembly (SIMD) through @tensorflow/tfjs-backend-wasm',
};

/**
 * After `loadTf()` from @dftracer/ai: makes the chosen backend able to train conv nets (wasm gets
 * its missing kernel) and says in a line what was chosen and what was passed over.
 */
export function readyForTraining(loaded: LoadedTf): string {
  if (loaded.backend === 'wasm') registerWasmConvGrad();
  const what = DEVICES[loaded.device] ?? (loaded.backend === 'tensorflow' ? 'native libtensorflow through @tensorflow/tfjs-node' : 'plain JavaScript (@tensorflow/tfjs cpu backend)');
  const skipped = loaded.skipped.map((s) => `${s.package.replace('@tensorflow/', '')}: ${s.reason}`).join('; ');
  return `${loaded.backend}: ${what}${skipped ? ` (passed over ${skipped})` : ''}`;
}
