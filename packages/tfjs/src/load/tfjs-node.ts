import type { Candidate } from './candidate.js';
import { loadNative } from './native.js';

/** `@tensorflow/tfjs-node`: libtensorflow on the CPU. */
export const tfjsNode: Candidate<'@tensorflow/tfjs-node', 'cpu' | 'cuda'> = {
  package: '@tensorflow/tfjs-node',
  async load(ctx) {
    const { tf, gpu } = await loadNative(this.package, ctx.from);
    return { tf, package: this.package, backend: 'tensorflow', device: gpu ? 'cuda' : 'cpu', addedKernels: [] };
  },
};
