import { createHash } from 'node:crypto';

/**
 * DFTracer's 16-hex-character hash: MD5 of the UTF-8 string, bytes 0,2,4,…,14 as lowercase hex.
 * `dftHash("tuolumne1004") === "f9ff883caaf21863"`.
 */
export function dftHash(s: string): string {
  const d = createHash('md5').update(s, 'utf8').digest();
  let out = '';
  for (let i = 0; i < 16; i += 2) out += d[i]!.toString(16).padStart(2, '0');
  return out;
}
