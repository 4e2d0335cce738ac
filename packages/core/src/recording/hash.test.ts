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

describe('HashTable memory', () => {
  it('keeps at most two generations, re-reports only what it forgot, and keeps what is in use', () => {
    const t = new HashTable(100);
    const reported = new Map<string, number>();
    const get = (s: string) => expect(t.get(s, (h) => reported.set(s, (reported.get(s) ?? 0) + 1))).toBe(dftHash(s));
    for (let i = 0; i < 1000; i++) {
      get(`/data/${i}`);
      get('/hot'); // met all the time: promoted to each new generation, never forgotten
      expect(t.size).toBeLessThanOrEqual(200);
    }
    expect(reported.get('/hot')).toBe(1);
    expect(reported.get('/data/999')).toBe(1);
    get('/data/999'); // recent: remembered
    expect(reported.get('/data/999')).toBe(1);
    get('/data/0'); // long forgotten: reported again
    expect(reported.get('/data/0')).toBe(2);
  });
});
