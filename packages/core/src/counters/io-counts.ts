/**
 * Bytes and operations of this thread's traced reads and writes, kept by the fs tracer as it
 * writes their events (the `io` counter reports the change per interval). One per thread, shared
 * by the ESM and CJS copies of the package.
 */
export const READ_BYTES = 0;
export const WRITE_BYTES = 1;
export const READ_OPS = 2;
export const WRITE_OPS = 3;

const KEY = Symbol.for('dftracer.core.ioCounts');

export function ioCounts(): Float64Array {
  const g = globalThis as { [KEY]?: Float64Array };
  return (g[KEY] ??= new Float64Array(4));
}

/** 1 read, 2 write, 0 neither: libc call names as the fs tracer writes them. */
export function ioDirection(name: string): number {
  switch (name) {
    case 'read':
    case 'pread':
    case 'readv':
    case 'preadv':
      return 1;
    case 'write':
    case 'pwrite':
    case 'writev':
    case 'pwritev':
      return 2;
    default:
      return 0;
  }
}

/** Counts one traced transfer: `dir` from ioDirection, `bytes` its result (negative: failed, 0 bytes). */
export function countIo(dir: number, bytes: number): void {
  if (dir === 0) return;
  const c = ioCounts();
  const moved = bytes > 0 ? bytes : 0;
  if (dir === 1) {
    c[READ_BYTES] = c[READ_BYTES]! + moved;
    c[READ_OPS] = c[READ_OPS]! + 1;
  } else {
    c[WRITE_BYTES] = c[WRITE_BYTES]! + moved;
    c[WRITE_OPS] = c[WRITE_OPS]! + 1;
  }
}
