import { performance } from 'node:perf_hooks';
import { perfMsToUs, warnOnce } from '@dftracer/core';
import { trackTfjsMemory, type TfMemoryLike } from '../counters/tfjs-memory.js';
import type { EngineLike, EngineStateLike, KernelArgsLike, KernelConfigLike, TensorInfoLike, TfCoreLike } from './types.js';

/**
 * One tfjs kernel that just ran, as every kernel listener sees it. The object is reused for the
 * next kernel: read it inside the listener and copy what you keep.
 */
export interface KernelCall {
  readonly kernelName: string;
  readonly backendName: string;
  /**
   * A small integer for (backendName, kernelName), the same for the life of the process (0, 1, 2…
   * in the order kernels were first wrapped): a listener keeps per-kernel state in an array
   * indexed by it instead of looking the names up in a map on every kernel.
   */
  readonly kernelId: number;
  readonly inputs: Readonly<Record<string, TensorInfoLike>>;
  readonly attrs: Readonly<Record<string, unknown>> | undefined;
  readonly outputs: readonly TensorInfoLike[];
  /** Integer µs since the epoch on the core's clock (Tracer.now(), nowUs()). */
  readonly start: number;
  readonly end: number;
  /**
   * The engine's gradient depth: > 0 while a tf.grad / variableGrads / optimizer.minimize forward
   * pass is being recorded on the tape (`isTapeOn()` reads false inside a kernel, this does not).
   */
  readonly gradDepth: number;
  /** 1 for a kernel the program called, 2+ for a kernel run by another kernel (tape clones). */
  readonly kernelDepth: number;
  /** The kernel runs in the backward pass of tf.grad / variableGrads / optimizer.minimize. */
  readonly backward: boolean;
  /** The kernel's ticket with the device timer while device time is on (`deviceTimer()`), else -1. */
  readonly deviceTicket: number;
}

export type KernelListener = (call: KernelCall) => void;

/**
 * What `subscribeKernels` returns: call it to unsubscribe. `want(false)` stops handing kernels to
 * this listener until `want(true)` while the kernels stay wrapped; when no listener wants kernels,
 * a kernel runs through its wrapper without a clock read or a call to any listener.
 */
export interface KernelSubscription {
  (): void;
  want(on: boolean): void;
}

interface MutableCall {
  kernelName: string;
  backendName: string;
  kernelId: number;
  inputs: Readonly<Record<string, TensorInfoLike>>;
  attrs: Readonly<Record<string, unknown>> | undefined;
  outputs: readonly TensorInfoLike[];
  start: number;
  end: number;
  gradDepth: number;
  kernelDepth: number;
  backward: boolean;
  deviceTicket: number;
  /** The outputs array for a kernel that returned one TensorInfo. */
  readonly one: TensorInfoLike[];
}

interface Installed {
  readonly original: KernelConfigLike;
  readonly wrapped: KernelConfigLike;
}

const NO_INPUTS: Readonly<Record<string, TensorInfoLike>> = Object.freeze({});
const NO_OUTPUTS: readonly TensorInfoLike[] = Object.freeze([]);
/** Stands in `one` between kernels: emptying it with `length = 0` would free its store, reallocated by the next kernel. */
const NO_TENSOR: TensorInfoLike = Object.freeze({ dataId: Object.freeze({}), shape: Object.freeze([]) as readonly number[], dtype: 'float32' });

function inBackwardScope(state: EngineStateLike): boolean {
  // The engine runs backprop under tidy('backward') with the tape still set and depth back at 0.
  if (state.gradientDepth !== 0 || state.activeTape == null) return false;
  const scopes = state.scopeStack;
  for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i]!.name === 'backward') return true;
  return false;
}

/**
 * One per process (shared by the ESM and CJS copies of core through a global symbol, as tfjs
 * shares its registry): every (backend, kernel) is wrapped at most once whoever subscribes.
 */
export class KernelHub {
  /** The listeners that want kernels now (the others are subscribed with want(false)). */
  listeners: readonly KernelListener[] = [];
  /** Subscriptions, wanting or not: the kernels stay wrapped while there is one. */
  subscriptions = 0;
  /** Set while a device timer runs: gives each kernel the GPU programs it recorded. */
  deviceClaim: (() => number) | null = null;
  tf: TfCoreLike | null = null;
  engine: EngineLike | null = null;
  /** Stops the tfjs memory counter started with the first subscription. */
  untrackMemory: (() => void) | null = null;
  readonly installed = new Map<string, Installed>();
  readonly wrappers = new WeakSet<object>();
  private readonly ids = new Map<string, number>();
  // Each listener's warnings under a key of its own (listeners are functions, keys are strings).
  private readonly listenerKeys = new WeakMap<KernelListener, string>();
  // One record per kernel depth: a kernel running inside another must not overwrite its record.
  private readonly records: MutableCall[] = [];

  private record(depth: number): MutableCall {
    let r = this.records[depth];
    if (r === undefined) {
      r = { kernelName: '', backendName: '', kernelId: -1, inputs: NO_INPUTS, attrs: undefined, outputs: NO_OUTPUTS, start: 0, end: 0, gradDepth: 0, kernelDepth: 0, backward: false, deviceTicket: -1, one: [] };
      this.records[depth] = r;
    }
    return r;
  }

  /** The kernelId of (backendName, kernelName); ids are never reused, so a listener's arrays stay valid. */
  kernelId(backendName: string, kernelName: string): number {
    const key = `${backendName}\0${kernelName}`;
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.ids.size));
    return id;
  }

  dispatch(kernelId: number, kernelName: string, backendName: string, args: KernelArgsLike, out: unknown, t0: number, t1: number): void {
    const ls = this.listeners;
    const engine = this.engine;
    if (ls.length === 0 || engine === null) return;
    let r: MutableCall;
    try {
      const st = engine.state;
      const depth = st.kernelDepth;
      r = this.record(depth > 0 ? depth : 0);
      r.kernelName = kernelName;
      r.backendName = backendName;
      r.kernelId = kernelId;
      r.inputs = (args?.inputs ?? NO_INPUTS) as Readonly<Record<string, TensorInfoLike>>;
      r.attrs = args?.attrs;
      if (Array.isArray(out)) r.outputs = out as TensorInfoLike[];
      else {
        r.one[0] = out as TensorInfoLike;
        r.outputs = r.one;
      }
      r.start = perfMsToUs(t0);
      r.end = perfMsToUs(t1);
      r.gradDepth = st.gradientDepth;
      r.kernelDepth = depth;
      r.backward = inBackwardScope(st);
      r.deviceTicket = this.deviceClaim === null ? -1 : this.deviceClaim();
    } catch (e) {
      this.warnOnce(dispatchKey, e);
      return;
    }
    for (let i = 0; i < ls.length; i++) {
      try {
        ls[i]!(r);
      } catch (e) {
        this.warnOnce(ls[i]!, e);
      }
    }
    // The record is reused: drop its references so it keeps no tensor bookkeeping alive.
    r.inputs = NO_INPUTS;
    r.attrs = undefined;
    r.outputs = NO_OUTPUTS;
    r.one[0] = NO_TENSOR;
  }

  private warnOnce(listener: KernelListener, e: unknown): void {
    let key = this.listenerKeys.get(listener);
    if (key === undefined) {
      key = `kernel-hub:${listener === dispatchKey ? 'engine' : `listener-${++listenerCount}`}`;
      this.listenerKeys.set(listener, key);
    }
    const what = listener === dispatchKey ? 'the kernel hub could not read the tfjs engine state' : `a kernel listener (${listener.name || 'anonymous'}) threw`;
    warnOnce(key, `${what}: ${(e as Error)?.message ?? String(e)}; the program goes on, this is reported once`);
  }

  /** Wraps every registered kernel not wrapped yet; returns how many were wrapped now. */
  sync(tf: TfCoreLike): number {
    let n = 0;
    for (const backendName of tf.engine().backendNames()) {
      for (const cfg of tf.getKernelsForBackend(backendName)) {
        if (this.wrappers.has(cfg.kernelFunc)) continue;
        const wrapped: KernelConfigLike = { ...cfg, kernelFunc: wrapKernel(this, cfg) };
        this.wrappers.add(wrapped.kernelFunc);
        try {
          // registerKernel warns about duplicates: take the entry out first.
          tf.unregisterKernel(cfg.kernelName, cfg.backendName);
          tf.registerKernel(wrapped);
          this.installed.set(`${cfg.backendName}\0${cfg.kernelName}`, { original: cfg, wrapped });
          n++;
        } catch (e) {
          if (tf.getKernel(cfg.kernelName, cfg.backendName) === undefined) tf.registerKernel(cfg);
          this.warnOnce(dispatchKey, e);
        }
      }
    }
    return n;
  }

  /** Puts the original kernels back where our wrapper is still the registered one. */
  restore(): void {
    const tf = this.tf;
    if (tf === null) return;
    for (const { original, wrapped } of this.installed.values()) {
      try {
        if (tf.getKernel(original.kernelName, original.backendName) !== wrapped) continue; // replaced since: not ours to undo
        tf.unregisterKernel(original.kernelName, original.backendName);
        tf.registerKernel(original);
      } catch (e) {
        this.warnOnce(dispatchKey, e);
      }
    }
    this.installed.clear();
    this.untrackMemory?.();
    this.untrackMemory = null;
    this.tf = null;
    this.engine = null;
  }
}

let listenerCount = 0;

/** Stands for the hub itself in the once-only warnings. */
const dispatchKey: KernelListener = () => {};

function wrapKernel(hub: KernelHub, cfg: KernelConfigLike): KernelConfigLike['kernelFunc'] {
  const original = cfg.kernelFunc;
  const kernelName = cfg.kernelName;
  const backendName = cfg.backendName;
  const id = hub.kernelId(backendName, kernelName);
  // Times the kernel and hands it to the listeners; never creates tensors or touches the result.
  return function dftracerKernel(this: unknown, args: KernelArgsLike): unknown {
    if (hub.listeners.length === 0) return original.call(this, args);
    const t0 = performance.now();
    const out = original.call(this, args);
    const t1 = performance.now();
    hub.dispatch(id, kernelName, backendName, args, out, t0, t1);
    return out;
  };
}

const HUB_KEY = Symbol.for('dftracer.core.kernelHub');

/** The process's kernel hub (one per process, shared by every copy of this package). */
export function kernelHub(): KernelHub {
  const g = globalThis as { [HUB_KEY]?: KernelHub };
  return (g[HUB_KEY] ??= new KernelHub());
}

function checkTf(tfCore: unknown, fn: string): asserts tfCore is TfCoreLike {
  const t = tfCore as Partial<Record<keyof TfCoreLike, unknown>> | null;
  const missing = (['getKernelsForBackend', 'getKernel', 'registerKernel', 'unregisterKernel', 'engine'] as const).filter((k) => typeof t?.[k] !== 'function');
  if (missing.length > 0) throw new TypeError(`${fn}: tfCore must be the tfjs module (import * as tf from '@tensorflow/tfjs'); it lacks ${missing.join(', ')}`);
}

/**
 * Calls `listener` after every tfjs kernel that runs, on every backend, until the returned
 * function is called (its `want(false)` pauses the calls, `want(true)` resumes them). Kernels are wrapped in the registry once for all subscribers (the first one
 * installs, the last one's unsubscribe puts the originals back); kernels registered later are
 * picked up by `syncKernels`. A listener that throws is reported once and never reaches the
 * program. Listeners must not run tfjs ops.
 */
export function subscribeKernels(tfCore: TfCoreLike, listener: KernelListener): KernelSubscription {
  checkTf(tfCore, 'subscribeKernels');
  if (typeof listener !== 'function') throw new TypeError(`subscribeKernels: listener must be a function; got ${typeof listener}`);
  const hub = kernelHub();
  if (hub.tf === null) {
    hub.tf = tfCore;
    hub.engine = tfCore.engine();
    // A tfjs backend is in use: its tensor counts go beside the events as a counter track.
    hub.untrackMemory = trackTfjsMemory(tfCore as unknown as TfMemoryLike);
  }
  hub.subscriptions++;
  hub.listeners = [...hub.listeners, listener];
  hub.sync(hub.tf);
  let subscribed = true;
  let active = true;
  const drop = () => {
    const i = hub.listeners.indexOf(listener);
    if (i >= 0) hub.listeners = [...hub.listeners.slice(0, i), ...hub.listeners.slice(i + 1)];
  };
  const unsubscribeKernels = function unsubscribeKernels() {
    if (!subscribed) return;
    subscribed = false;
    if (active) drop();
    active = false;
    if (--hub.subscriptions === 0) hub.restore();
  };
  return Object.assign(unsubscribeKernels, {
    want(on: boolean): void {
      if (typeof on !== 'boolean') throw new TypeError(`subscribeKernels: want(on) takes a boolean; got ${String(on)}`);
      if (!subscribed || on === active) return;
      active = on;
      if (on) hub.listeners = [...hub.listeners, listener];
      else drop();
    },
  });
}

/**
 * Wraps kernels registered since the first subscription (a backend imported later); returns how
 * many. Cheap to call when nothing changed, but it walks the registry: call it when the active
 * backend changes, not per kernel. Does nothing while no listener is subscribed.
 */
export function syncKernels(tfCore: TfCoreLike): number {
  checkTf(tfCore, 'syncKernels');
  const hub = kernelHub();
  return hub.tf === null ? 0 : hub.sync(hub.tf);
}

/** How many kernel listeners are subscribed and how many registry entries the hub has wrapped. */
export function kernelHubStatus(): { readonly listeners: number; readonly wrappedKernels: number } {
  const hub = kernelHub();
  return { listeners: hub.subscriptions, wrappedKernels: hub.installed.size };
}
