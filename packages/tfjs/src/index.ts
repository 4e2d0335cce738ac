// What programs use: load tfjs (or hand yours over), track its memory, wait for device times.
// The integrations' layer (the kernel hub, device timing, tensor facts) is `@dftracer/tfjs/internal`.
export type { Tf } from './tf.js';
export { loadTf } from './load/load-tf.js';
export type { LoadedTf } from './load/load-tf.js';
export type { LoadTfOptions } from './load/options.js';
export type { CandidateName, TfDevice, TfPackage } from './load/candidates.js';
export { useTfNamespace, currentTf } from './namespace.js';
export { trackTfjsMemory } from './counters/tfjs-memory.js';
export type { TfMemoryInfo, TfMemoryLike } from './counters/tfjs-memory.js';
export { DeviceTimeError } from './device-time/mode.js';
export type { DeviceTimeMode } from './device-time/mode.js';
export { deviceTimesSettled } from './device-time/session.js';
export { releaseWebGPU } from './load/webgpu.js';
export type { WebGPULoadOptions } from './load/webgpu.js';
export type { WebGPUOptions } from './webgpu/options.js';
export { registerWasmConvGrad, WASM_TRAINING_KERNELS } from './wasm/conv-grad.js';
