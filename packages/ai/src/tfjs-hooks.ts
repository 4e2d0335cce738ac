import type { ArgValue, CallHooks } from '@dftracer/core';
import { checkOptionKeys } from '@dftracer/core';
import { useTfNamespace, type Tf } from '@dftracer/tfjs';
import { isAsyncBackend } from '@dftracer/tfjs/internal';
import { ai } from './taxonomy.js';
import { OutputFacts, tensorTest, tensorsIn } from './tensor-facts.js';

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

/** The engine's running totals, which `tf.memory()` copies (and which every backend shares). */
type EngineTotals = { numTensors: number; numBytes: number };

/**
 * The memory totals when each open compute call began, in numbered slots: `begin` returns its
 * slot (an integer, no object per call), `args` or `fail` gives it back. Calls may overlap
 * (async ones), so slots are taken from a free list rather than by nesting depth.
 */
class MemoryMarks {
  private tensors: Float64Array = new Float64Array(16);
  private bytes: Float64Array = new Float64Array(16);
  private free = new Int32Array(16);
  private freeCount = 0;
  private used = 0;

  constructor(private readonly read: () => EngineTotals) {}

  mark(): number {
    const m = this.read();
    let i: number;
    if (this.freeCount > 0) i = this.free[--this.freeCount]!;
    else {
      i = this.used++;
      if (i === this.tensors.length) {
        this.tensors = grow(this.tensors);
        this.bytes = grow(this.bytes);
        const f = new Int32Array(this.free.length * 2);
        f.set(this.free);
        this.free = f;
      }
    }
    this.tensors[i] = m.numTensors;
    this.bytes[i] = m.numBytes;
    return i;
  }

  /** Writes the deltas since mark `i` into `out` and gives the slot back. */
  close(i: number, out: { tensors_delta: number; bytes_delta: number }): void {
    const m = this.read();
    out.tensors_delta = m.numTensors - this.tensors[i]!;
    out.bytes_delta = m.numBytes - this.bytes[i]!;
    this.release(i);
  }

  release(i: number): void {
    this.free[this.freeCount++] = i;
  }
}

function grow(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** The engine's totals without `tf.memory()` (which builds an object per call), where tfjs has them. */
function totalsReader(tf: Tf): () => EngineTotals {
  const engine = (tf as { engine?: () => { state?: Partial<EngineTotals> } }).engine;
  const state = typeof engine === 'function' ? engine.call(tf)?.state : undefined;
  if (typeof state?.numTensors === 'number' && typeof state.numBytes === 'number') {
    // engine().state is replaced by tf.engine().reset(): read it anew each time.
    return () => engine!.call(tf)!.state as EngineTotals;
  }
  return () => tf.memory() as EngineTotals;
}

/**
 * The args objects the compute hooks return, one per set of keys, reused call after call (the
 * core reads them before the next call). Key order as the events have always had it.
 */
interface ComputeArgs {
  readonly both: { out_shape: ArgValue; out_bytes: number; tensors_delta: number; bytes_delta: number };
  readonly shapes: { out_shape: ArgValue; out_bytes: number };
  readonly memory: { tensors_delta: number; bytes_delta: number };
}

/** The compute hooks for one tfjs namespace. */
export function computeHooks(tf: Tf, options: UseTfOptions = {}): CallHooks<number | undefined> {
  const isTensor = tensorTest(tf.Tensor);
  const shapes = options.shapes !== false;
  const memory = options.memory !== false;
  const sync = options.sync ?? 'auto';
  const facts = new OutputFacts(isTensor);
  const marks = new MemoryMarks(totalsReader(tf));
  const out: ComputeArgs = {
    both: { out_shape: null, out_bytes: 0, tensors_delta: 0, bytes_delta: 0 },
    shapes: { out_shape: null, out_bytes: 0 },
    memory: { tensors_delta: 0, bytes_delta: 0 },
  };
  // Whether the active backend is asynchronous, asked once per backend name. tf.engine read
  // once: on a bundled namespace each read is a getter call, and this runs on every call.
  const engine = tf.engine;
  let backendSeen = '';
  let backendAsync = false;
  const asyncBackend = (): boolean => {
    const name = (engine.call(tf) as { backendName: string }).backendName;
    if (name !== backendSeen) {
      backendAsync = isAsyncBackend(tf);
      backendSeen = name;
    }
    return backendAsync;
  };
  return {
    begin: memory ? () => marks.mark() : undefined,
    fail: memory ? (mark) => marks.release(mark!) : undefined,
    settle:
      sync === false
        ? undefined
        : (result) => {
            if (sync === 'auto' && !asyncBackend()) return undefined;
            const ts = tensorsIn(result, isTensor).filter((t) => !t.isDisposed);
            if (ts.length === 0) return undefined;
            return Promise.all(ts.map((t) => t.data()));
          },
    args: (_a, result, mark) => {
      const found = shapes && facts.read(result);
      if (mark === undefined) {
        if (!found) return undefined;
        out.shapes.out_shape = facts.shapes;
        out.shapes.out_bytes = facts.bytes;
        return out.shapes;
      }
      if (!found) {
        marks.close(mark, out.memory);
        return out.memory;
      }
      out.both.out_shape = facts.shapes;
      out.both.out_bytes = facts.bytes;
      marks.close(mark, out.both);
      return out.both;
    },
  };
}

/** Hooks for host↔device copies: `bytes` moved and the `direction`. */
export function transferHooks(tf: Tf): CallHooks<undefined> {
  const isTensor = tensorTest(tf.Tensor);
  const facts = new OutputFacts(isTensor);
  const hostBytes = (v: unknown): number => (ArrayBuffer.isView(v) ? v.byteLength : Array.isArray(v) ? v.reduce((n: number, x) => n + hostBytes(x), 0) : 0);
  const up = { direction: 'h2d', bytes: 0 };
  const down = { direction: 'd2h', bytes: 0 };
  const moved = { bytes: 0 };
  return {
    args: (callArgs, result) => {
      if (facts.read(result)) {
        up.bytes = facts.bytes;
        return up;
      }
      const d = hostBytes(result);
      if (d > 0) {
        down.bytes = d;
        return down;
      }
      // No tensor or host data out: the tensors passed in (a copy in place, a dispose).
      let bytes = 0;
      let found = false;
      for (let i = 0; i < callArgs.length; i++) {
        if (facts.read(callArgs[i], false)) {
          bytes += facts.bytes;
          found = true;
        }
      }
      if (!found) return undefined;
      moved.bytes = bytes;
      return moved;
    },
  };
}

/** Throws, naming the option, on what `useTf` (and loadTf's `sync`) cannot use. */
/** useTf's option names; ai's loadTf takes them beside @dftracer/tfjs's. */
export const USE_TF_KEYS: readonly string[] = ['sync', 'shapes', 'memory'];

export function checkUseTfOptions(options: unknown, fn = 'useTf'): void {
  if (options === null || typeof options !== 'object') throw new TypeError(`${fn}: options must be an object like { sync, shapes, memory }; got ${String(options)}`);
  const o = options as Record<string, unknown>;
  checkOptionKeys(fn, o, USE_TF_KEYS);
  if (o.sync !== undefined && typeof o.sync !== 'boolean' && o.sync !== 'auto') throw new TypeError(`${fn}: sync must be true, false or 'auto'; got ${JSON.stringify(o.sync)}`);
  for (const k of ['shapes', 'memory'] as const) if (o[k] !== undefined && typeof o[k] !== 'boolean') throw new TypeError(`${fn}: ${k} must be a boolean; got ${JSON.stringify(o[k])}`);
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
  checkUseTfOptions(options);
  useTfNamespace(tf);
  ai.compute.instrument.setHooks(computeHooks(tf, options));
  ai.device.transfer.instrument.setHooks(transferHooks(tf));
}
