export { subscribeKernels, syncKernels, kernelHubStatus } from './kernels/kernel-hub.js';
export type { KernelCall, KernelListener } from './kernels/kernel-hub.js';
export type { TensorInfoLike, TfCoreLike, KernelConfigLike, KernelArgsLike, EngineLike, EngineStateLike } from './kernels/types.js';
export { trackTfjsMemory } from './counters/tfjs-memory.js';
export type { TfMemoryInfo, TfMemoryLike } from './counters/tfjs-memory.js';
