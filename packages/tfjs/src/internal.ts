// `@dftracer/tfjs/internal`: what the integrations (ai, dynamo, the profiler) build on. Not for
// programs: it may change with any release of the integrations.
export { resolveTf } from './resolve.js';
export { KEYS as LOAD_TF_OPTIONS } from './load/options.js';
export type { TfCoreModule } from './resolve.js';
export { isAsyncBackend } from './async-backend.js';
export { DTYPE_BYTES, dtypeBytes, numel, tensorBytes } from './tensors.js';
export type { TensorMeta } from './tensors.js';
export { subscribeKernels, syncKernels, kernelHubStatus } from './kernels/kernel-hub.js';
export type { KernelCall, KernelListener, KernelSubscription } from './kernels/kernel-hub.js';
export type { TensorInfoLike, TfCoreLike, KernelConfigLike, KernelArgsLike, EngineLike, EngineStateLike } from './kernels/types.js';
export { checkDeviceTimeMode, decideDeviceTime } from './device-time/mode.js';
export type { BackendFacts, DeviceTimeDecision } from './device-time/mode.js';
export { backendFacts, startDeviceTiming } from './device-time/session.js';
export type { DeviceTimer, DeviceTiming, TfForDeviceTime } from './device-time/session.js';
export { WebGPUTimer } from './device-time/webgpu-timer.js';
export { adapterText, describeAdapter } from './webgpu/adapter.js';
export type { AdapterReport } from './webgpu/adapter.js';
