/**
 * The parts of `@tensorflow/tfjs-core` the kernel hub uses, as structural types: the core never
 * imports tfjs; an integration passes its own `tf` (from `@tensorflow/tfjs`, `-core` or `-node`).
 */

/** A tensor as kernels see it (tfjs `TensorInfo`). `shape` and `dtype` stay readable after dispose. */
export interface TensorInfoLike {
  readonly dataId: object;
  readonly shape: readonly number[];
  readonly dtype: string;
}

/** What the engine passes to a kernel function. */
export interface KernelArgsLike {
  readonly inputs: Readonly<Record<string, TensorInfoLike | undefined>>;
  readonly attrs?: Readonly<Record<string, unknown>>;
  readonly backend: unknown;
}

/** A registry entry (tfjs `KernelConfig`). */
export interface KernelConfigLike {
  readonly kernelName: string;
  readonly backendName: string;
  // Typed loosely on purpose: tfjs declares narrower parameter types than ours.
  readonly kernelFunc: (args: any) => unknown;
  readonly setupFunc?: unknown;
  readonly disposeFunc?: unknown;
}

/** The engine's read-only bookkeeping (`tf.engine().state`), stable through tfjs 4.x. */
export interface EngineStateLike {
  /** Nested tf.grad depth: > 0 while a forward pass is being recorded on a gradient tape. */
  readonly gradientDepth: number;
  /** Nested kernel depth: 1 inside a kernel called by the program, 2+ for kernels run by a kernel. */
  readonly kernelDepth: number;
  readonly scopeStack: readonly { readonly name: string }[];
  /** The gradient tape; set from a tf.grad's forward pass to the end of its backward pass. */
  readonly activeTape?: unknown;
}

export interface EngineLike {
  readonly state: EngineStateLike;
  /** Name of the active backend. */
  readonly backendName: string;
  /** Every registered backend's name. */
  backendNames(): string[];
}

/** The tfjs-core module, or any namespace re-exporting it (`import * as tf from '@tensorflow/tfjs'`). */
export interface TfCoreLike {
  getKernelsForBackend(backendName: string): readonly KernelConfigLike[];
  getKernel(kernelName: string, backendName: string): KernelConfigLike | undefined;
  registerKernel(config: KernelConfigLike): void;
  unregisterKernel(kernelName: string, backendName: string): void;
  engine(): EngineLike;
}
