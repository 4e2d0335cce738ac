import { trackTfjsMemory, type TfMemoryLike } from './counters/tfjs-memory.js';
import type { Tf } from './tf.js';

// One registry per process, shared by the ESM and CJS copies of this package.
const KEY = Symbol.for('dftracer.tfjs.namespace');

interface Registry {
  /** What the program handed over (useTfNamespace, loadTf, ai's useTf). */
  given: Tf | undefined;
  /** Stops the `tfjs` memory counter started for it. */
  untrack: (() => void) | undefined;
}

function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  return (g[KEY] ??= { given: undefined, untrack: undefined });
}

/**
 * Hands this tfjs namespace to every integration (ai's `tfjsAutoTrace`, dynamo, the profiler):
 * the one they use unless a call passes its own, and starts the `tfjs` `memory` counter for it
 * (`trackTfjsMemory`). `loadTf()` calls it; a program that imports tfjs itself (or bundles it)
 * calls it once with its `tf`.
 */
export function useTfNamespace(tf: Tf): void {
  if (tf === null || (typeof tf !== 'object' && typeof tf !== 'function') || typeof (tf as { engine?: unknown }).engine !== 'function') {
    throw new TypeError('useTfNamespace: tf must be the TensorFlow.js namespace (import * as tf from "@tensorflow/tfjs"), with engine()');
  }
  const r = registry();
  if (r.given === tf) return;
  // Every tfjs user gets the tensor counts (and so the leak verdict), once per engine however
  // often a namespace is handed over; the counter samples only while tracing is on.
  const untrack = trackTfjsMemory(tf as unknown as TfMemoryLike);
  r.untrack?.();
  r.untrack = untrack;
  r.given = tf;
}

/** The namespace last handed to `useTfNamespace` (or `loadTf`), or undefined. */
export function currentTf(): Tf | undefined {
  return registry().given;
}
