import type { Candidate } from './candidate.js';
import { loadNative } from './native.js';

/** `@tensorflow/tfjs-node-gpu`: libtensorflow on CUDA. */
export const tfjsNodeGpu: Candidate<'@tensorflow/tfjs-node-gpu', 'cuda'> = {
  package: '@tensorflow/tfjs-node-gpu',
  async load(ctx) {
    const { tf, gpu } = await loadNative(this.package, ctx.from);
    // tfjs-node-gpu falls back to the CPU silently when CUDA libraries are missing.
    if (!gpu) throw new Error('loaded, but libtensorflow found no CUDA device (missing CUDA/cuDNN libraries or no GPU)');
    return { tf, package: this.package, backend: 'tensorflow', device: 'cuda', addedKernels: [] };
  },
};
