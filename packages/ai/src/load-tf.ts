import { loadTf as loadTfNamespace, type LoadedTf, type LoadTfOptions as TfjsLoadTfOptions } from '@dftracer/tfjs';
import { useTf, type UseTfOptions } from './tfjs-hooks.js';

/** `@dftracer/tfjs`'s loadTf options and those of `useTf` for the compute tracers. */
export interface LoadTfOptions extends TfjsLoadTfOptions, UseTfOptions {}

/**
 * `@dftracer/tfjs`'s `loadTf` (the best TensorFlow.js present, reported in the `tfjs` CM record),
 * then `useTf` on what it got, so the `ai.compute` and `ai.device.transfer` tracers record tensor
 * shapes, bytes and memory deltas: pydftracer-style programs load tfjs from here.
 */
export async function loadTf(options: LoadTfOptions = {}): Promise<LoadedTf> {
  if (options === null || typeof options !== 'object') return loadTfNamespace(options);
  const { sync, shapes, memory, ...load } = options;
  const loaded = await loadTfNamespace(load);
  useTf(loaded.tf, { sync, shapes, memory });
  return loaded;
}
