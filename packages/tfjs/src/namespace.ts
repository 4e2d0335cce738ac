import type { Tf } from './tfjs-load.js';

/** The namespace last handed to `useTf` (by `loadTf` or the user): tfjsAutoTrace's default. */
let last: Tf | undefined;

export function rememberTf(tf: Tf): void {
  last = tf;
}

export function lastLoadedTf(): Tf | undefined {
  return last;
}
