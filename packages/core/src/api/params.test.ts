import { describe, expect, it } from 'vitest';
import { paramSlots } from './params.js';

describe('paramSlots', () => {
  it('finds step coordinates among positional parameters, with numeric defaults', () => {
    function train(data: unknown, epoch: number, step = 3, imageSize = 2.5) {
      return [data, epoch, step, imageSize];
    }
    expect(paramSlots(train)).toEqual([
      { key: 'epoch', index: 1 },
      { key: 'step', index: 2, dflt: 3 },
      { key: 'image_size', index: 3, dflt: 2.5 },
    ]);
  });

  it('handles arrows, methods, classes, destructuring and rest without guessing', () => {
    expect(paramSlots((epoch: number) => epoch)).toEqual([{ key: 'epoch', index: 0 }]);
    expect(paramSlots(({ epoch }: { epoch: number }, step: number) => epoch + step)).toEqual([{ key: 'step', index: 1 }]);
    class C {
      constructor(public image_idx: number) {}
    }
    expect(paramSlots(C)).toEqual([{ key: 'image_idx', index: 0 }]);
    expect(paramSlots((...rest: number[]) => rest)).toEqual([]);
  });
});
