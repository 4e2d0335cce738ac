/**
 * `node --import @dftracer/core/register app.mjs` (or `--require` for CommonJS) traces an
 * unmodified program, configured only by DFTRACER_* variables: the analogue of DFTracer's
 * LD_PRELOAD mode. Loading it first also means ESM named imports of node:fs see the fs tracer.
 */
import { initializeLog } from './lifecycle.js';

initializeLog();
