import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { beforeClose } from '../writer/trace-fd-guard.js';
import type { Teardown } from '../types.js';
import { dress, patch, unpatch, type AnyFn, type Patch } from './identity.js';

/**
 * `fs.close`/`fs.closeSync` of the trace descriptor must surrender it before the program's close
 * runs (trace-fd-guard.ts), whether or not I/O is traced: these wrappers do only that, under the
 * fs plugin's own (installed after them) or alone with DFTRACER_DISABLE_IO=1.
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
