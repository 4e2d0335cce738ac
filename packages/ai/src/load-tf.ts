import { loadTf as loadTfNamespace, type LoadedTf, type LoadTfOptions as TfjsLoadTfOptions } from '@dftracer/tfjs';
import { checkOptionKeys } from '@dftracer/core';
import { LOAD_TF_OPTIONS } from '@dftracer/tfjs/internal';
import { checkUseTfOptions, USE_TF_KEYS, useTf, type UseTfOptions } from './tfjs-hooks.js';

/** `@dftracer/tfjs`'s loadTf options and those of `useTf` for the compute tracers. */
export interface LoadTfOptions extends TfjsLoadTfOptions, UseTfOptions {}

/**
 * `@dftracer/tfjs`'s `loadTf` (the best TensorFlow.js present, reported in the `tfjs` CM record),
 * then `useTf` on what it got, so the `ai.compute` and `ai.device.transfer` tracers record tensor
 * shapes, bytes and memory deltas: pydftracer-style programs load tfjs from here.
 */
export async function loadTf(options: LoadTfOptions = {}): Promise<LoadedTf> {
  if (options === null || typeof options !== 'object') return loadTfNamespace(options);
  // one check over both sets of names, so a misspelt `sycn` is told it meant `sync`
  checkOptionKeys('loadTf', options, [...LOAD_TF_OPTIONS, ...USE_TF_KEYS]);
  const { sync, shapes, memory, ...load } = options;
  checkUseTfOptions({ sync, shapes, memory }, 'loadTf');
  const loaded = await loadTfNamespace(load);
  useTf(loaded.tf, { sync, shapes, memory });
  return loaded;
}
