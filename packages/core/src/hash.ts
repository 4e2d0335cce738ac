import { createHash } from 'node:crypto';

/**
 * DFTracer's 16-hex hash: MD5 of the UTF-8 string, bytes 0,2,…,14 as lowercase hex.
 * Upstream computes it this way (E2 layout), so our hashes match traces written by DFTracer itself.
 */
export function dftHash(s: string): string {
  const d = createHash('md5').update(s, 'utf8').digest();
  let out = '';
  for (let i = 0; i < 16; i += 2) out += HEX[d[i]!]!;
  return out;
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Memoises dftHash and reports first sight, so metadata records are written once per string. */
export class HashTable {
  private readonly seen = new Map<string, string>();

  /** Returns the hash; `onNew` runs the first time a string is seen. */
  get(s: string, onNew: (hash: string) => void): string {
    let h = this.seen.get(s);
    if (h === undefined) {
      h = dftHash(s);
      this.seen.set(s, h);
      onNew(h);
    }
    return h;
  }
}
