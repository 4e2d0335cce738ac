import { createRequire } from 'node:module';
import { DeviceType } from './activity.js';
import type { EngineTotals } from './kernel-log.js';

/** The parts of the tfjs module the profiler reads besides the kernel hook. */
interface TfEngineView {
  engine(): { state: EngineTotals; registry?: Record<string, { isUsingGpuDevice?: boolean } | undefined> };
}

/**
 * The tfjs module to profile: the one passed, else `@tensorflow/tfjs-core` as resolved from here
 * (every tfjs flavour loads that one CommonJS module, so it is the instance the program uses).
 */
export function resolveTf(given: unknown): unknown {
  if (given !== undefined) {
    if (given === null || (typeof given !== 'object' && typeof given !== 'function') || typeof (given as { engine?: unknown }).engine !== 'function') {
      throw new TypeError('profile: tf must be the tfjs module (import * as tf from "@tensorflow/tfjs"), with engine()');
    }
    return given;
  }
  try {
    return createRequire(import.meta.url)('@tensorflow/tfjs-core');
  } catch (err) {
    throw new Error(`profile: no tfjs found; pass your tfjs module as profile({ tf }) (loading @tensorflow/tfjs-core failed: ${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The engine, whose `state` holds the running totals (read per kernel: `reset()` replaces it). */
export function engineOf(tf: unknown): { readonly state: EngineTotals } {
  return (tf as TfEngineView).engine();
}

/** Which device a backend's kernels run on: GPU for webgl/webgpu and tfjs-node on CUDA. */
export function backendDevice(tf: unknown, backendName: string): DeviceType {
  if (backendName === 'webgl' || backendName === 'webgpu') return DeviceType.GPU;
  try {
    const b = (tf as TfEngineView).engine().registry?.[backendName];
    if (b?.isUsingGpuDevice === true) return DeviceType.GPU;
  } catch {
    // An engine without a registry view: a host backend.
  }
  return DeviceType.CPU;
}
