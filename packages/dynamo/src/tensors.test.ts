import { describe, expect, it } from 'vitest';
import { inputSignature, typesText } from './tensors.js';

const t = (shape: number[], dtype = 'float32') => ({ dataId: {}, shape, dtype });

describe('typesText', () => {
  it('writes kernel inputs and outputs by dtype and shape, the same string object for the same types', () => {
    const a = typesText({ x: t([1, 32, 32, 3]), filter: t([3, 3, 3, 16]), bias: undefined });
    expect(a).toBe('float32[1,32,32,3], float32[3,3,3,16]');
    expect(typesText({ x: t([1, 32, 32, 3]), filter: t([3, 3, 3, 16]) })).toBe(a);
    expect(typesText([t([2, 2], 'int32')])).toBe('int32[2,2]');
    // Same numbers, other structure: never confused.
    expect(typesText([t([2]), t([2])])).toBe('float32[2], float32[2]');
    expect(typesText([t([2, 1, 2])])).toBe('float32[2,1,2]');
    expect(typesText([t([], 'bool')])).toBe('bool[]');
    expect(typesText([t([4], 'bfloat16')])).toBe('bfloat16[4]');
    expect(typesText([])).toBe('');
  });
});

describe('inputSignature', () => {
  it('guards on tensor types and other arguments by value', () => {
    expect(inputSignature([t([1, 3]), { training: true }, 2, 'a', undefined])).toBe('float32[1,3]|{training:true}|2|"a"|undefined');
    expect(inputSignature([[t([1]), t([2], 'int32')]])).toBe('[float32[1],int32[2]]');
  });
});
