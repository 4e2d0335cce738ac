import type { DeviceType } from './activity.js';

/** One profiled event: a tfjs kernel, a garbage-collection pause or a `recordFunction` region. Times in integer µs since the epoch, on the tracer's clock. */
export interface ProfilerEvent {
  /** Kernel name (`Conv2D`, `_FusedMatMul`), `gc.minor` / `gc.major` / `gc.incremental` / `gc.weakcb`, or the recordFunction name. */
  readonly name: string;
  readonly kind: 'kernel' | 'gc' | 'user_annotation';
  readonly device: DeviceType;
  /** The tfjs backend that ran the kernel; `node` for GC pauses and annotations. */
  readonly backend: string;
  readonly start: number;
  /** Wall time on the host; on a GPU backend that is the kernel's dispatch, not its work. */
  readonly duration: number;
  /** µs the kernel's GPU programs ran (deviceTime `timestamp`); absent where device time is off or unknown. */
  readonly deviceTime?: number;
  /** The profiler step it ran in. */
  readonly step: number;
  /** Whether a gradient tape was recording (`tf.grad`, `optimizer.minimize`'s forward pass). */
  readonly gradEnabled: boolean;
  /** With `recordShapes`: the input tensors' shapes and dtypes, in the kernel's input order. */
  readonly inputShapes: readonly (readonly number[])[];
  readonly inputDtypes: readonly string[];
  /** With `profileMemory`: bytes and tensors of the kernel's outputs, and the engine's totals after it. */
  readonly bytesAdded: number;
  readonly tensorsAdded: number;
  readonly totalBytes: number;
  readonly totalTensors: number;
  /** With `withStack`: the JS call sites that launched the kernel, innermost first, outside tfjs and dftracer. */
  readonly stack: readonly string[];
}

/** One profiler step of a recorded cycle (torch's `ProfilerStep#N`). */
export interface ProfilerStep {
  readonly step: number;
  readonly start: number;
  readonly duration: number;
  /** Share of the step the event loop spent running JS rather than waiting (perf_hooks eventLoopUtilization), 0–1. */
  readonly eventLoopUtilization: number;
  /** Event-loop delay seen during the step (perf_hooks monitorEventLoopDelay), µs; 0 when the loop never turned. */
  readonly eventLoopDelayMaxUs: number;
  readonly eventLoopDelayMeanUs: number;
}
