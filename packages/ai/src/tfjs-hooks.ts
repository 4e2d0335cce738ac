import type { ArgValue, CallHooks } from '@dftracer/core';
import { dtypeBytes, isAsyncBackend, useTfNamespace, type Tf } from '@dftracer/tfjs';
import { ai } from './taxonomy.js';

export interface UseTfOptions {
  /**
   * Compute events wait for the device work of the tensors they return before closing (a
   * `data()` read of each), so asynchronous backends (CUDA, WebGL, WebGPU) show device time, not
   * dispatch time. `'auto'` (default): only where the backend is asynchronous.
   */
  sync?: boolean | 'auto';
  /** Compute events record `out_shape` and `out_bytes` of returned tensors. Default true. */
  shapes?: boolean;
  /** Compute events record `tensors_delta` and `bytes_delta` of `tf.memory()`. Default true. */
  memory?: boolean;
}

type Tensor = { shape: number[]; dtype: string; size: number; isDisposed: boolean; data(): Promise<unknown> };

const bytesOf = (ts: readonly Tensor[]): number => ts.reduce((n, t) => n + t.size * dtypeBytes(t.dtype), 0);

/** The tensors a call returned: one, an array of them, or an object's tensor values. */
function tensorsIn(v: unknown, isTensor: (x: unknown) => x is Tensor): Tensor[] {
  if (isTensor(v)) return [v];
  if (Array.isArray(v)) return v.filter(isTensor);
  if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v).filter(isTensor);
  return [];
}

interface Before {
  readonly tensors: number;
  readonly bytes: number;
}

/** The compute hooks for one tfjs namespace. */
export function computeHooks(tf: Tf, options: UseTfOptions = {}): CallHooks<Before | undefined> {
  const isTensor = (x: unknown): x is Tensor => x instanceof tf.Tensor;
  const shapes = options.shapes !== false;
  const memory = options.memory !== false;
  const sync = options.sync ?? 'auto';
  return {
    begin: memory
      ? () => {
          const m = tf.memory();
          return { tensors: m.numTensors, bytes: m.numBytes };
        }
      : undefined,
    settle:
      sync === false
        ? undefined
        : (result) => {
            if (sync === 'auto' && !isAsyncBackend(tf)) return undefined;
            const ts = tensorsIn(result, isTensor).filter((t) => !t.isDisposed);
            if (ts.length === 0) return undefined;
            return Promise.all(ts.map((t) => t.data()));
          },
    args: (_a, result, before) => {
      const out: Record<string, ArgValue> = {};
      if (shapes) {
        const ts = tensorsIn(result, isTensor);
        if (ts.length > 0) {
          out.out_shape = ts.length === 1 ? ts[0]!.shape : ts.map((t) => t.shape);
          out.out_bytes = bytesOf(ts);
        }
      }
      if (before !== undefined) {
        const m = tf.memory();
        out.tensors_delta = m.numTensors - before.tensors;
        out.bytes_delta = m.numBytes - before.bytes;
      }
      return out;
    },
  };
}

/** Hooks for host↔device copies: `bytes` moved and the `direction`. */
export function transferHooks(tf: Tf): CallHooks<undefined> {
  const isTensor = (x: unknown): x is Tensor => x instanceof tf.Tensor;
  const hostBytes = (v: unknown): number => (ArrayBuffer.isView(v) ? v.byteLength : Array.isArray(v) ? v.reduce((n: number, x) => n + hostBytes(x), 0) : 0);
  return {
    args: (callArgs, result) => {
      const outT = tensorsIn(result, isTensor);
      if (outT.length > 0) return { direction: 'h2d', bytes: bytesOf(outT) };
      const down = hostBytes(result);
      if (down > 0) return { direction: 'd2h', bytes: down };
      const inT = Array.from(callArgs).flatMap((a) => tensorsIn(a, isTensor));
      return inT.length > 0 ? { bytes: bytesOf(inT) } : undefined;
    },
  };
}

/**
 * Hands a tfjs namespace to the taxonomy: every `ai.compute` tracer records output shapes/bytes
 * and `tf.memory()` deltas and (on asynchronous backends, by default) waits for the device work of
 * what it returns; `ai.device.transfer` records bytes and direction. Hands `tf` to the other
 * integrations too (`useTfNamespace`). This package's `loadTf()` calls it.
 */
export function useTf(tf: Tf, options: UseTfOptions = {}): void {
  if (tf === null || typeof tf !== 'object' || typeof tf.memory !== 'function' || typeof tf.Tensor !== 'function') {
    throw new TypeError('useTf: expected the TensorFlow.js namespace (import * as tf from "@tensorflow/tfjs")');
  }
  useTfNamespace(tf);
  ai.compute.instrument.setHooks(computeHooks(tf, options));
  ai.device.transfer.instrument.setHooks(transferHooks(tf));
}
