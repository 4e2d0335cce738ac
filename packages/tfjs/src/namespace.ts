import type { Tf } from './tf.js';

// One registry per process, shared by the ESM and CJS copies of this package.
const KEY = Symbol.for('dftracer.tfjs.namespace');

interface Registry {
  /** What the program handed over (useTfNamespace, loadTf, ai's useTf). */
  given: Tf | undefined;
}

function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  return (g[KEY] ??= { given: undefined });
}

/**
 * Hands this tfjs namespace to every integration (ai's `tfjsAutoTrace`, dynamo, the profiler):
 * the one they use unless a call passes its own. `loadTf()` calls it; a program that imports
 * tfjs itself (or bundles it) calls it once with its `tf`.
 */
export function useTfNamespace(tf: Tf): void {
  if (tf === null || (typeof tf !== 'object' && typeof tf !== 'function') || typeof (tf as { engine?: unknown }).engine !== 'function') {
    throw new TypeError('useTfNamespace: tf must be the TensorFlow.js namespace (import * as tf from "@tensorflow/tfjs"), with engine()');
  }
  registry().given = tf;
}

/** The namespace last handed to `useTfNamespace` (or `loadTf`), or undefined. */
export function currentTf(): Tf | undefined {
  return registry().given;
}
