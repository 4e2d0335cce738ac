export { initializeLog, finalize, getTime, logMetadata, addPlugin, VERSION } from './lifecycle.js';
export type { InitOptions, DFTracerLogger } from './lifecycle.js';
export { dftFn, Profile, DftFn } from './dft-fn.js';
export type { DftFnOptions, UpdateOptions, LogOptions, IterOptions, Region, StepInfo } from './dft-fn.js';
export { getTracer, tracingEnabled } from './access.js';
export { resolveConfig, ConfigError } from './config.js';
export type { ConfigOptions } from './config.js';
export { dftHash } from './hash.js';
export type { ArgValue, Args, DFTracerConfig, EnterOptions, LogLevel, Plugin, Span, Teardown, Tracer } from './types.js';
