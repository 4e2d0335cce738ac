// The core bench's POSIX-read-shaped events, shared by cases.mjs and thread-cpu.mjs.
import { join } from 'node:path';

/**
 * Returns `emit(n)`, which records n events through tracer `t` as the fs plugin records a read
 * (an event shape, no args object): sequential 4 KiB reads over 64 files under `dataDir`, 256 per
 * file, durations 2–5 µs.
 */
export function posixFlood(t, dataDir) {
  const hashes = Array.from({ length: 64 }, (_, k) => t.hashFile(join(dataDir, `shard-${k}.bin`)));
  const read = t.shape('read', 'POSIX', ['fhash', 'count', 'offset', 'ret']);
  let off = 0;
  return (n) => {
    for (let i = 0; i < n; i++) {
      const ts = t.now();
      const k = (i >> 8) & 63;
      t.emitShaped(read, ts, 2 + (i & 3), hashes[k], 4096, off, 4096);
      off = (i & 255) === 255 ? 0 : off + 4096;
    }
  };
}
