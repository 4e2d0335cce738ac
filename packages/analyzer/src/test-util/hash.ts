import { createHash } from 'node:crypto';

/**
 * DFTracer's 16-hex-digit hash of a string (the E2 layout's FH/HH/SH values): the MD5 digest of
 * its UTF-8 bytes, keeping the bytes at even offsets (0, 2, …, 14), each as two lowercase hex
 * digits. The test trace writer's own (`trace-writer.test-util.ts`), checked against the tracer's
 * in `hash.test.ts`, so that the writer stands alone.
 */
export function dftHash(s: string): string {
  const digest = createHash('md5').update(s, 'utf8').digest();
  let out = '';
  for (let i = 0; i < digest.length; i += 2) out += digest[i]!.toString(16).padStart(2, '0');
  return out;
}
