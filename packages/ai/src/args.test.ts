import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { ai, loadTf, tfjsAutoTrace, traceDataset, useTf } from './index.js';

// Every public function checks its arguments once and names itself and the argument.

describe('argument checks', () => {
  it('a tracer called with something it cannot trace names itself', () => {
    expect(() => ai.compute.step(42 as never)).toThrow(/^ai\.compute\.step: expects a function, method, class or options like \{ step \}; got number/);
    expect(() => ai.compute.step('x' as never)).toThrow(/^ai\.compute\.step: expects .*; got string/);
    expect(() => ai.checkpoint.init(undefined as never)).toThrow(/^ai\.checkpoint\.init: expects .*; got undefined/);
    expect(() => ai.compute.step({ epochs: 1 } as never)).toThrow(/^ai\.compute\.step: unknown option "epochs" \(did you mean epoch\?\); known options: enable, epoch, step/);
    expect(() => ai.compute.step({ enable: 1 } as never)).toThrow(/^ai\.compute\.step: enable must be a boolean/);
    expect(() => ai.compute.step({ step: NaN })).toThrow(/^ai\.compute\.step\.update: step must be a finite number; got NaN/);
  });

  it('update, derive, init', () => {
    expect(() => ai.update(42 as never)).toThrow(/^ai\.update: expected an options object; got 42/);
    expect(() => ai.update({ step: NaN })).toThrow(/^ai\.update: step must be a finite number; got NaN/);
    expect(() => ai.compute.update({ imageSize: 'x' as never })).toThrow(/^ai\.compute\.update: imageSize must be a finite number/);
    expect(() => ai.data.preprocess.derive(42 as never)).toThrow(/^ai\.data\.preprocess\.derive: name must be a non-empty string; got 42/);
    expect(() => ai.data.derive('')).toThrow(/^ai\.data\.derive: name must be a non-empty string/);
    expect(ai.checkpoint.init.name).toBe('checkpoint.init');
  });

  it('regions and iterables', () => {
    expect(() => ai.compute.start(42 as never)).toThrow(/^ai\.compute\.start: options must be an object like \{ metadata, args \}; got 42/);
    expect(() => ai.compute.start({ args: 3 } as never)).toThrow(/^ai\.compute\.start: args must be an object/);
    expect(() => ai.compute.start({ meta: true } as never)).toThrow(/^ai\.compute\.start: unknown option "meta"/);
    expect(() => ai.compute.stop(42 as never)).toThrow(/^ai\.compute\.stop: options must be an object/);
    expect(() => ai.compute.run(42 as never)).toThrow(/^ai\.compute\.run: fn must be a function; got number/);
    expect(() => ai.compute.run(() => 1, 42 as never)).toThrow(/^ai\.compute\.run: args must be an object/);
    expect(() => ai.data.iter(42 as never)).toThrow(/^ai\.data\.iter: expected an iterable or async iterable; got number/);
    expect(() => ai.data.iter([1], 42 as never)).toThrow(/^ai\.data\.iter: options must be an object/);
    expect(() => ai.data.iter([1], { includeIters: false } as never)).toThrow(/^ai\.data\.iter: unknown option "includeIters" \(did you mean includeIter\?\)/);
    expect([...ai.data.iter([1, 2])]).toEqual([1, 2]);
  });

  it('useTf, loadTf, tfjsAutoTrace, traceDataset', async () => {
    expect(() => useTf(42 as never)).toThrow(/^useTf: expected the TensorFlow.js namespace/);
    expect(() => useTf(tf, 42 as never)).toThrow(/^useTf: options must be an object like \{ sync, shapes, memory \}; got 42/);
    expect(() => useTf(tf, { sync: 'yes' as never })).toThrow(/^useTf: sync must be true, false or 'auto'; got "yes"/);
    expect(() => useTf(tf, { shapes: 1 as never })).toThrow(/^useTf: shapes must be a boolean; got 1/);
    await expect(loadTf({ prefer: ['tpu' as never] })).rejects.toThrow(/^loadTf: prefer\[0\] is an unknown candidate "tpu"/);
    await expect(loadTf({ prefer: ['cpu'], memory: 'no' as never })).rejects.toThrow(/^loadTf: memory must be a boolean/);
    expect(() => useTf(tf, { shape: true } as never)).toThrow(/^useTf: unknown option "shape" \(did you mean shapes\?\); known options: sync, shapes, memory$/);
    // ai's loadTf knows @dftracer/tfjs's options and useTf's: a slip in either is named with the one meant
    await expect(loadTf({ prefer: ['cpu'], sycn: true } as never)).rejects.toThrow(/^loadTf: unknown option "sycn" \(did you mean sync\?\); known options: prefer, from, wasmTraining, tf, webgpu, sync, shapes, memory$/);
    await expect(loadTf({ prefered: ['cpu'] } as never)).rejects.toThrow(/^loadTf: unknown option "prefered" \(did you mean prefer\?\)/);
    expect(() => tfjsAutoTrace(42 as never)).toThrow(/^tfjsAutoTrace: options must be an object like \{ tf \}; got 42/);
    expect(() => tfjsAutoTrace({ tf: 42 as never })).toThrow(/^tfjsAutoTrace: tf must be the TensorFlow.js namespace/);
    expect(() => tfjsAutoTrace({ tfjs: tf } as never)).toThrow(/^tfjsAutoTrace: unknown option "tfjs" \(did you mean tf\?\); known options: tf$/);
    expect(tfjsAutoTrace({ tf }).name).toBe('ai.tfjs');
    expect(() => traceDataset(42)).toThrow(/^traceDataset: expected a tf.data.Dataset/);
  });
});
