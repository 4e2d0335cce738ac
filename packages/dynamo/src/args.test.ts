import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile, createBackend, Dynamo, kernelCost } from './index.js';
import { simpleModel } from './models.test-util.js';

// Every public function checks its arguments once and names itself and the argument.

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('argument checks', () => {
  it('createBackend and Dynamo', () => {
    expect(() => createBackend(42 as never)).toThrow(/^createBackend: options must be an object; got 42/);
    expect(() => createBackend({ epoch: 'x' as never })).toThrow(/^createBackend: epoch must be a non-negative integer; got x/);
    expect(() => createBackend({ step: NaN })).toThrow(/^createBackend: step must be a non-negative integer; got NaN/);
    expect(() => createBackend({ imageSize: [224, NaN] })).toThrow(/^createBackend: imageSize must be a number or an array of numbers/);
    expect(() => createBackend({ name: '' })).toThrow(/^createBackend: name must be a non-empty string/);
    expect(() => createBackend({ enable: 'yes' as never })).toThrow(/^createBackend: enable must be a boolean/);
    expect(() => createBackend({ onGraph: 1 as never })).toThrow(/^createBackend: onGraph must be a function/);
    expect(() => createBackend({ deviceTime: 'gpu' as never })).toThrow(/^createBackend: deviceTime must be/);
    expect(() => createBackend({ epochs: 1 } as never)).toThrow(/^createBackend: unknown option "epochs" \(did you mean epoch\?\); known options: name, enable/);
    expect(() => new Dynamo(42 as never)).toThrow(/^createBackend: options must be an object/);
  });

  it('a backend update', () => {
    const b = createBackend();
    expect(() => b.update(42 as never)).toThrow(/^update: expects an object like \{ epoch, step \}; got 42/);
    expect(() => b.update({ step: -1 })).toThrow(/^update: step must be a non-negative integer; got -1/);
    expect(() => b.update({ name: 'x' } as never)).toThrow(/^update: unknown option "name"; known options: epoch, step, imageIdx, imageSize/);
    expect(() => new Dynamo().update({ imageIdx: 1.5 })).toThrow(/^update: imageIdx must be a non-negative integer; got 1.5/);
    expect(b.update({ step: 3 }).step).toBe(3);
  });

  it('compile', () => {
    expect(() => compile(42 as never)).toThrow(/^compile: expects a function, a tfjs LayersModel or options like \{ backend \}; got number/);
    expect(() => compile(null as never)).toThrow(/^compile: expects .*; got null/);
    expect(() => compile((x: unknown) => x, 42 as never)).toThrow(/^compile: the second argument must be options like \{ backend \}; got 42/);
    expect(() => compile((x: unknown) => x, { backnd: createBackend() } as never)).toThrow(/^compile: unknown option "backnd" \(did you mean backend\?\); known options: backend, deviceTime$/);
    expect(() => compile({ backend: 'fast' as never })).toThrow(/^compile: options.backend must be a backend from createBackend, its options or a function; got fast/);
    expect(() => compile({ backend: { epoch: -1 } })).toThrow(/^createBackend: epoch must be a non-negative integer/);
    expect(() => compile(simpleModel(), { deviceTime: 'gpu' as never })).toThrow(/^compile: deviceTime must be/);
    expect(() => compile({})(42 as never)).toThrow(/^compile: expects a function or a tfjs LayersModel; got number/);
  });

  it('kernelCost', () => {
    expect(() => kernelCost(42 as never, [], [], undefined)).toThrow(/^kernelCost: kernel must be a kernel name/);
    expect(() => kernelCost('MatMul', 42 as never, [], undefined)).toThrow(/^kernelCost: ins must be an array/);
    expect(() => kernelCost('MatMul', [], [{}] as never, undefined)).toThrow(/^kernelCost: outs must be an array/);
    expect(() => kernelCost('MatMul', [], [], 3 as never)).toThrow(/^kernelCost: attrs must be an object or undefined/);
    const mm = kernelCost('BatchMatMul', [{ key: 'a', shape: [1, 2, 3], dtype: 'float32' }, { key: 'b', shape: [1, 3, 4], dtype: 'float32' }], [{ shape: [1, 2, 4], dtype: 'float32' }], {});
    expect(mm.flops).toBe(2 * 2 * 3 * 4);
  });
});
