import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Tf } from '../tf.js';
import { requireFrom, requirers } from '../resolve.js';

/**
 * tfjs-node's install downloads libtensorflow and builds `lib/napi-v*\/tfjs_binding.node`; where
 * that failed the package is present but cannot load, and loading its JS would still register its
 * kernels. Checked first, so such an install is passed over cleanly with the reason.
 */
function checkBinding(pkg: string, from: string | undefined): void {
  let dir: string | undefined;
  for (const rq of requirers(from)) {
    try {
      dir = dirname(rq.resolve(`${pkg}/package.json`));
      break;
    } catch {
      // next place
    }
  }
  if (dir === undefined) throw Object.assign(new Error(`Cannot find module '${pkg}'`), { code: 'MODULE_NOT_FOUND' });
  const lib = join(dir, 'lib');
  const built = existsSync(lib) && readdirSync(lib).some((d) => existsSync(join(lib, d, 'tfjs_binding.node')));
  if (!built) throw new Error('installed, but its native binding was not built (its install downloads libtensorflow, which failed or was skipped)');
}

/** A libtensorflow package (tfjs-node or -node-gpu) on its `tensorflow` backend; `gpu`: whether it found a CUDA device. */
export async function loadNative(pkg: string, from: string | undefined): Promise<{ tf: Tf; gpu: boolean }> {
  checkBinding(pkg, from);
  const tf = requireFrom(pkg, requirers(from)).mod as Tf;
  await tf.ready();
  const backend = tf.getBackend();
  if (backend !== 'tensorflow') throw new Error(`loaded, but the active backend is ${backend}, not tensorflow`);
  return { tf, gpu: (tf.backend() as { isUsingGpuDevice?: boolean }).isUsingGpuDevice === true };
}
