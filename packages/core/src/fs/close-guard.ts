import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { beforeClose } from '../trace-fd-guard.js';
import type { Teardown } from '../types.js';
import { dress, patch, unpatch, type AnyFn, type Patch } from './identity.js';

/**
 * With I/O tracing off (DFTRACER_DISABLE_IO=1) the fs plugin's close wrappers are not installed,
 * but the trace descriptor still needs their first step: `fs.close`/`fs.closeSync` of it must
 * surrender it before the program's close runs (trace-fd-guard.ts). These wrappers do only that.
 */
export function guardCloses(): Teardown {
  const patches: Patch[] = [];
  const f = fs as unknown as Record<string, unknown>;
  const guarded = (orig: AnyFn): AnyFn =>
    dress(function (this: unknown, fd: unknown) {
      beforeClose(fd);
      return orig.apply(this, arguments as never);
    }, orig);
  patch(patches, f, 'closeSync', guarded);
  patch(patches, f, 'close', guarded);
  syncBuiltinESMExports();
  return () => {
    unpatch(patches);
    syncBuiltinESMExports();
  };
}
