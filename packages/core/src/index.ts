export { initializeLog, finalize, getTime, logMetadata, addPlugin } from './api/lifecycle.js';
export { VERSION } from './api/version.js';
export type { InitOptions, DFTracerLogger } from './api/lifecycle.js';
export { dftFn, Profile } from './api/dft-fn.js';
export type { DftFn, DftFnOptions, UpdateOptions, LogOptions, IterOptions, Region, StepInfo } from './api/dft-fn.js';
export { Instrument, instrument } from './api/instrument.js';
export type { CallHooks, ChildOptions, EventName, InstrumentIterOptions, InstrumentOptions, IterNames, RegionOptions, VariantOptions } from './api/instrument.js';
export { getTracer, tracingEnabled } from './api/access.js';
export { ConfigError } from './config/resolve.js';
export { fsPlugin } from './fs/index.js';
export { counter, addCounterSampler } from './api/counters.js';
export type { CounterSampler, CounterValues, EmitCounter } from './api/counters.js';
export type { ConfigOptions } from './config/settings.js';
export { dftHash } from './recording/hash.js';
export type { ArgValue, Args, DFTracerConfig, EnterOptions, EventShape, GzipEncoder, LogLevel, Plugin, Span, Teardown, Tracer } from './types.js';
// The plugin face: what integrations use instead of copies of their own.
export { nowUs, perfMsToUs } from './recording/clock.js';
export { warnOnce } from './plugin/warn-once.js';
export { isDescriptor } from './plugin/descriptor.js';
