/**
 * How kernel events get their device time on asynchronous backends (a GPU), where a kernel's
 * wall time is only its dispatch:
 * - `auto` (default): `timestamp` where the device can time kernels, else `off`;
 * - `timestamp`: GPU timestamp queries (WebGPU with `timestamp-query`), read back without ever
 *   blocking the program; an error where the device has none;
 * - `sync`: wait for the device after each kernel (a read of its outputs, like
 *   `CUDA_LAUNCH_BLOCKING=1`): real times, serialised, slower. For backends that can wait
 *   synchronously (tfjs-node-gpu, webgl); an error on WebGPU, whose JavaScript API cannot;
 * - `off`: dispatch times only.
 * On synchronous backends (cpu, wasm, tfjs-node on the CPU) a kernel's duration is its device time
 * already, and every mode records just that.
 */
export type DeviceTimeMode = 'auto' | 'timestamp' | 'sync' | 'off';

/** What a mode came to on the active backend, and why (written in the `tfjs.device_time` CM record). */
export interface DeviceTimeDecision {
  readonly requested: DeviceTimeMode;
  /** `host`: the backend is synchronous, durations are device times. */
  readonly mode: 'timestamp' | 'sync' | 'off' | 'host';
  readonly backend: string;
  readonly reason: string;
  /** The device track's name (`webgpu:0`), when kernels get one. */
  readonly track: string | null;
}

const MODES: readonly DeviceTimeMode[] = ['auto', 'timestamp', 'sync', 'off'];

/** Checks a `deviceTime` option; the error names the option of the function that took it. */
export function checkDeviceTimeMode(value: unknown, where: string): DeviceTimeMode {
  if (value === undefined) return 'auto';
  if (typeof value === 'string' && (MODES as readonly string[]).includes(value)) return value as DeviceTimeMode;
  throw new TypeError(`${where}: deviceTime must be 'auto', 'timestamp', 'sync' or 'off'; got ${JSON.stringify(value)}`);
}

/** The backend facts a decision needs. */
export interface BackendFacts {
  readonly name: string;
  /** Kernels only enqueue work (webgl, webgpu, tfjs-node on CUDA). */
  readonly asynchronous: boolean;
  /** The device can time kernels with timestamp queries. */
  readonly timestampQuery: boolean;
  /** The backend can wait for the device synchronously (a read of a tensor). */
  readonly canWaitSync: boolean;
}

/** Thrown for a mode the active backend cannot honour; says why. */
export class DeviceTimeError extends Error {
  override readonly name = 'DFTracerDeviceTimeError';
}

/** Decides what `requested` means on this backend; throws DeviceTimeError where it cannot be honoured. */
export function decideDeviceTime(requested: DeviceTimeMode, b: BackendFacts, where: string): DeviceTimeDecision {
  const base = { requested, backend: b.name };
  if (!b.asynchronous) {
    return { ...base, mode: 'host', reason: `backend ${b.name} runs kernels synchronously: each kernel's duration is its device time`, track: null };
  }
  if (requested === 'off') return { ...base, mode: 'off', reason: 'deviceTime: off: kernel durations are dispatch times', track: null };
  if (requested === 'sync') {
    if (!b.canWaitSync) {
      throw new DeviceTimeError(
        `${where}: deviceTime 'sync' is not possible on backend ${b.name}: WebGPU's JavaScript API cannot wait for the device synchronously ` +
          "(and tfjs-webgpu's dataSync needs OffscreenCanvas, which Node lacks); use 'timestamp' where the adapter has timestamp-query, or 'auto'",
      );
    }
    return { ...base, mode: 'sync', reason: `deviceTime: sync: each kernel waits for the device (real times, serialised, slower)`, track: `${b.name}:0` };
  }
  if (b.timestampQuery) return { ...base, mode: 'timestamp', reason: 'timestamp queries: GPU time per kernel, read back asynchronously', track: `${b.name}:0` };
  const why = b.name === 'webgpu' ? 'the WebGPU adapter has no timestamp-query feature' : `backend ${b.name} offers no timestamp queries to tfjs`;
  if (requested === 'timestamp') throw new DeviceTimeError(`${where}: deviceTime 'timestamp' is not possible: ${why}`);
  return { ...base, mode: 'off', reason: `deviceTime: auto: off, ${why}; kernel durations are dispatch times`, track: null };
}
