import { describe, expect, it } from 'vitest';
import { HashTable, dftHash } from './hash.js';

describe('dftHash', () => {
  it('matches the DFTracer test vectors', () => {
    expect(dftHash('tuolumne1004')).toBe('f9ff883caaf21863');
    expect(dftHash('DEFAULT-spawn')).toBe('8a4eff4d79020d73');
    expect(dftHash('/usr/WS2/sinurat1/pydftracer')).toBe('457466652c169c22');
  });

  it('hashes non-ASCII strings as UTF-8', () => {
    expect(dftHash('é')).toMatch(/^[0-9a-f]{16}$/);
    expect(dftHash('é')).not.toBe(dftHash('e'));
  });
});

describe('HashTable', () => {
  it('reports a string once', () => {
    const t = new HashTable();
    const fresh: string[] = [];
    t.get('/a', (h) => fresh.push(h));
    t.get('/a', (h) => fresh.push(h));
    t.get('/b', (h) => fresh.push(h));
    expect(fresh).toEqual([dftHash('/a'), dftHash('/b')]);
  });
});
