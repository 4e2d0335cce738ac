// GC per isolate from a `node --trace-gc` process's stdout, shared by the benches that split the
// program's collections from the writer thread's.

/**
 * Scavenges and mark-compacts per isolate (by address), with their pause ms, in the order the
 * isolates first collect. A process that calls gc() first (`--expose-gc`) puts its main isolate first.
 */
export function gcPerIsolate(stdout) {
  const isolates = new Map();
  // `[pid:0xaddr]  123 ms: Scavenge 29.3 (37.8) -> 21.4 (37.8) MB, 0.20 / 0.00 ms ...`
  for (const m of stdout.matchAll(/^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (Scavenge|Mark-Compact|Minor Mark-Compact|Mark-Sweep)\b.*?MB, ([\d.]+) \//gm)) {
    const g = isolates.get(m[1]) ?? { gcs: 0, ms: 0 };
    g.gcs++;
    g.ms += Number(m[3]);
    isolates.set(m[1], g);
  }
  return [...isolates.values()];
}
