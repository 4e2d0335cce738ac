import type { Tf } from '../tf.js';
import { requireFrom, requirers } from '../resolve.js';
import type { Candidate } from './candidate.js';

/** `@tensorflow/tfjs` on its pure-JavaScript cpu backend: always there when tfjs is. */
export const cpu: Candidate<'@tensorflow/tfjs', 'cpu'> = {
  package: '@tensorflow/tfjs',
  async load(ctx) {
    const tf = requireFrom(this.package, requirers(ctx.from)).mod as Tf;
    if (!(await tf.setBackend('cpu'))) throw new Error('the cpu backend failed to initialize');
    await tf.ready();
    return { tf, package: this.package, backend: 'cpu', device: 'cpu', addedKernels: [] };
  },
};
