import { addCounterSampler, type EmitCounter } from '@dftracer/core';

/** What `tf.memory()` reports (tfjs 4.x); `numBytesInGPU` only on GPU backends. */
export interface TfMemoryInfo {
  readonly numTensors: number;
  readonly numDataBuffers: number;
  readonly numBytes: number;
  readonly numBytesInGPU?: number;
}

/** The tfjs module (`import * as tf from '@tensorflow/tfjs'`), or its engine, as far as memory goes. */
export interface TfMemoryLike {
  memory?(): TfMemoryInfo;
  engine?(): { memory(): TfMemoryInfo };
}

interface Tracked {
  readonly remove: () => void;
  refs: number;
}

const KEY = Symbol.for('dftracer.tfjs.memoryCounters');

function tracked(): WeakMap<object, Tracked> {
  const g = globalThis as { [KEY]?: WeakMap<object, Tracked> };
  return (g[KEY] ??= new WeakMap());
}

/**
 * Adds the `tfjs` `memory` counter (num_tensors, num_data_buffers, num_bytes, and num_bytes_in_gpu
 * where the backend reports it) to the core's counter samples, read with `tf.memory()` once per
 * counter interval on the program's thread (a few field reads: no sync, no kernel). The tensor-leak
 * verdict of `dftracer summary` reads it. One sampler per tfjs engine, however many namespaces of
 * it ask (`@tensorflow/tfjs`, tfjs-core, tfjs-node share one engine). `useTfNamespace` (so `loadTf`
 * and ai's `useTf`), ai's `tfjsAutoTrace` and the kernel hub call this; call it yourself for a tfjs
 * nothing else of dftracer.js is given. Returns the function that stops it (after as many calls as
 * were made for this engine).
 */
export function trackTfjsMemory(tf: TfMemoryLike): () => void {
  const read = memoryReader(tf);
  const map = tracked();
  const key = engineOf(tf);
  let t = map.get(key);
  if (t === undefined) {
    const sampler = function tfjsMemory(emit: EmitCounter): void {
      const m = read();
      const values: Record<string, number> = { num_tensors: m.numTensors, num_data_buffers: m.numDataBuffers, num_bytes: m.numBytes };
      if (typeof m.numBytesInGPU === 'number') values.num_bytes_in_gpu = m.numBytesInGPU;
      emit('memory', 'tfjs', values);
    };
    t = { remove: addCounterSampler(sampler), refs: 0 };
    map.set(key, t);
  }
  t.refs++;
  let done = false;
  const entry = t;
  return function untrackTfjsMemory() {
    if (done) return;
    done = true;
    if (--entry.refs > 0) return;
    entry.remove();
    map.delete(key);
  };
}

/** The engine behind a namespace (what its counts are of), or the object itself where it has none. */
function engineOf(tf: TfMemoryLike): object {
  try {
    const e = typeof tf.engine === 'function' ? tf.engine() : undefined;
    if (e !== null && typeof e === 'object') return e;
  } catch {
    // an engine that cannot be had: count by the namespace
  }
  return tf;
}

function memoryReader(tf: TfMemoryLike): () => TfMemoryInfo {
  if (typeof tf?.memory === 'function') return () => tf.memory!();
  if (typeof tf?.engine === 'function') return () => tf.engine!().memory();
  throw new TypeError('trackTfjsMemory: tf must be the tfjs module (import * as tf from \'@tensorflow/tfjs\'); it has neither memory() nor engine()');
}
