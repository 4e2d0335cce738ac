export { ai, createAI, ROOT_NAME, ROOT_CAT, ITER_COUNT_NAME, BLOCK_NAME, ITER_NAME, INIT_NAME } from './taxonomy.js';
export type { AI, AICompute, AIData, AIDataLoader, AIComm, AIDevice, AICheckpoint, AIPipeline, AIOther, AIIo } from './taxonomy.js';
export type { AITracer, AITracerOptions, AIRegionOptions, AIIterOptions } from './ai-tracer.js';
export { loadTf } from './load-tf.js';
export type { LoadTfOptions } from './load-tf.js';
// The types of what ai's loadTf returns; the rest of tfjs setup is @dftracer/tfjs's own API.
export type { LoadedTf, Tf, TfPackage } from '@dftracer/tfjs';
export { useTf, computeHooks, transferHooks } from './tfjs-hooks.js';
export type { UseTfOptions } from './tfjs-hooks.js';
export { tfjsAutoTrace, traceDataset } from './tfjs-autotrace.js';
export type { TfjsAutoTraceOptions } from './tfjs-autotrace.js';

import { ai } from './taxonomy.js';

/** pydftracer's module aliases (`from dftracer.python.ai import compute`). */
export const compute = ai.compute;
export const data = ai.data;
export const dataloader = ai.dataloader;
export const comm = ai.comm;
export const device = ai.device;
export const checkpoint = ai.checkpoint;
export const pipeline = ai.pipeline;
export const other = ai.other;
