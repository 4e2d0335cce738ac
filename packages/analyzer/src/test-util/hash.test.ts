import { dftHash as coreHash } from '@dftracer/core';
import { describe, expect, it } from 'vitest';
import { dftHash } from './hash.js';

describe('dftHash', () => {
  it('gives the hashes genuine DFTracer traces carry', () => {
    expect(dftHash('tuolumne1004')).toBe('f9ff883caaf21863');
    expect(dftHash('DEFAULT-spawn')).toBe('8a4eff4d79020d73');
    expect(dftHash('/usr/WS2/sinurat1/pydftracer')).toBe('457466652c169c22');
  });

  it('agrees with the tracer’s on any string (non-ASCII and empty too)', () => {
    for (const s of ['', 'a', '/data/ünïcode/файл.bin', 'x'.repeat(10_000), 'python;train.py;--epochs;3']) expect(dftHash(s), s).toBe(coreHash(s));
  });
});
