import { describe, expect, it } from 'vitest';
import { dftHash } from './hash.js';

describe('dftHash', () => {
  it('matches DFTracer test vectors', () => {
    expect(dftHash('tuolumne1004')).toBe('f9ff883caaf21863');
    expect(dftHash('DEFAULT-spawn')).toBe('8a4eff4d79020d73');
    expect(dftHash('/usr/WS2/sinurat1/pydftracer')).toBe('457466652c169c22');
  });
});
