import { isAsyncBackend, resolveTf as resolveTfjs } from '@dftracer/tfjs/internal';
import { DeviceType } from './activity.js';
import type { EngineTotals } from './kernel-log.js';

/** The tfjs module to profile: `profile({ tf })`, else what @dftracer/tfjs resolves (the namespace handed over, else the installed tfjs-core). */
export function resolveTf(given: unknown): unknown {
  return resolveTfjs(given, 'profile');
}

/** The engine, whose `state` holds the running totals (read per kernel: `reset()` replaces it). */
export function engineOf(tf: unknown): { readonly state: EngineTotals } {
  return (tf as { engine(): { state: EngineTotals } }).engine();
}

/** Which device a backend's kernels run on: GPU where they only enqueue GPU work. */
export function backendDevice(tf: unknown, backendName: string): DeviceType {
  return isAsyncBackend(tf as { engine(): unknown }, backendName) ? DeviceType.GPU : DeviceType.CPU;
}
