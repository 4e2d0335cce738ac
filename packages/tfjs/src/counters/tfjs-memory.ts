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
 * verdict of `dftracer summary` reads it. The kernel hub calls this for the tfjs it hooks; call it
 * yourself for a tfjs nothing else of dftracer.js touches. Returns the function that stops it (after
 * as many calls as were made for this tf).
 */
export function trackTfjsMemory(tf: TfMemoryLike): () => void {
  const read = memoryReader(tf);
  const map = tracked();
  let t = map.get(tf);
  if (t === undefined) {
    const sampler = function tfjsMemory(emit: EmitCounter): void {
      const m = read();
      const values: Record<string, number> = { num_tensors: m.numTensors, num_data_buffers: m.numDataBuffers, num_bytes: m.numBytes };
      if (typeof m.numBytesInGPU === 'number') values.num_bytes_in_gpu = m.numBytesInGPU;
      emit('memory', 'tfjs', values);
    };
    t = { remove: addCounterSampler(sampler), refs: 0 };
    map.set(tf, t);
  }
  t.refs++;
  let done = false;
  const entry = t;
  return function untrackTfjsMemory() {
    if (done) return;
    done = true;
    if (--entry.refs > 0) return;
    entry.remove();
    map.delete(tf);
  };
}

function memoryReader(tf: TfMemoryLike): () => TfMemoryInfo {
  if (typeof tf?.memory === 'function') return () => tf.memory!();
  if (typeof tf?.engine === 'function') return () => tf.engine!().memory();
  throw new TypeError('trackTfjsMemory: tf must be the tfjs module (import * as tf from \'@tensorflow/tfjs\'); it has neither memory() nor engine()');
}
