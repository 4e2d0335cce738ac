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

/**
 * Memoises dftHash and reports first sight, so metadata records are written once per string —
 * within a bounded memory: strings are kept in two generations of at most `generation` each, and
 * one not met in the last two is forgotten and, if met again, reported again (its `FH`/`SH`
 * record written a second time, which readers take as the same mapping). A data loader that opens
 * a million distinct files would otherwise keep every path for the life of the process.
 */
export class HashTable {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  constructor(private readonly generation = 1 << 15) {}

  /** Returns the hash; `onNew` runs the first time a string is seen (or seen again after being forgotten). */
  get(s: string, onNew: (hash: string) => void): string {
    let h = this.current.get(s);
    if (h !== undefined) return h;
    h = this.previous.get(s);
    const fresh = h === undefined;
    if (fresh) h = dftHash(s);
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(s, h!);
    if (fresh) onNew(h!);
    return h!;
  }

  /** Strings remembered now (at most two generations). */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
