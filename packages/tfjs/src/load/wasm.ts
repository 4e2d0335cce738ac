import { dirname } from 'node:path';
import type { Tf } from '../tf.js';
import { requireFrom, requirers } from '../resolve.js';
import { registerWasmConvGrad } from '../wasm/conv-grad.js';
import { reasonOf, type Candidate } from './candidate.js';

/**
 * `@tensorflow/tfjs` on `@tensorflow/tfjs-backend-wasm`, given the kernels wasm lacks to train
 * conv nets unless `wasmTraining: false`.
 */
export const wasm: Candidate<'@tensorflow/tfjs', 'wasm'> = {
  package: '@tensorflow/tfjs',
  async load(ctx) {
    const places = requirers(ctx.from);
    const tf = requireFrom(this.package, places).mod as Tf;
    const { mod, resolved } = requireFrom('@tensorflow/tfjs-backend-wasm', places);
    (mod as { setWasmPaths(p: string): void }).setWasmPaths(dirname(resolved) + '/');
    if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend failed to initialize');
    await tf.ready();
    let addedKernels: string[] = [];
    if (ctx.wasmTraining) {
      // A failure costs only training, so it is a warning.
      try {
        addedKernels = registerWasmConvGrad(tf);
      } catch (e) {
        ctx.warn(`loadTf: could not add the wasm training kernels: ${reasonOf(e)}`);
      }
    }
    return { tf, package: this.package, backend: 'wasm', device: 'wasm', addedKernels };
  },
};
