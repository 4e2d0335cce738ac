/**
 * The trace file's descriptor in this thread, guarded against the program closing it.
 *
 * A writer thread checks that the descriptor still refers to the trace file, then writes. A program
 * that closes that descriptor and opens another file, which takes the same number, between the
 * two would receive a gzip member in its own file. The close wrappers of fs/close-guard.ts (always
 * installed, I/O traced or not) call `beforeClose` first: the trace descriptor is surrendered —
 * every thread's writes stopped under the file's lock, one warning — before the program's close
 * runs, so no write can be in between. (A close that bypasses `node:fs`, from a native addon, is
 * not seen.)
 */
let guarded: { fd: number; surrender: () => void } | null = null;

export function guardTraceFd(fd: number, surrender: () => void): void {
  guarded = { fd, surrender };
}

export function unguardTraceFd(): void {
  guarded = null;
}

/** Called before any close through `node:fs` in this thread. */
export function beforeClose(fd: unknown): void {
  const g = guarded;
  if (g === null || fd !== g.fd) return;
  guarded = null;
  g.surrender();
}
