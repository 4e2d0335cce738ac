/**
 * `node --import @dftracer/core/register app.mjs` (or `--require` for CommonJS) traces an
 * unmodified program, configured only by DFTRACER_* variables: the analogue of DFTracer's
 * LD_PRELOAD mode. Loading it first also means ESM named imports of node:fs see the fs tracer.
 * Like LD_PRELOAD it is inherited: node child processes load it too (see children.ts).
 */
import { isMainThread } from 'node:worker_threads';
import { preloadInChildren } from './api/children.js';
import { initializeLog } from './api/lifecycle.js';

if (initializeLog().enabled && isMainThread) preloadInChildren(import.meta.url);
