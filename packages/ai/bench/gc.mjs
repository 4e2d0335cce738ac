// GC per isolate, from `node --trace-gc`: the program's (main) and the writer thread's, for the
// same many tiny tf ops untraced and as hooked `ai.compute.forward` events (profile.mjs). The
// writer formats every event as text for zlib (the default encoder) and its garbage is collected
// by parallel scavenges that share the machine's cores, and V8's helper threads, with the program.
// Usage: node gc.mjs <outDir> [calls]; prints one JSON line.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const [, , outDir, calls = '300000'] = process.argv;

/** Scavenges and mark-compacts per isolate (by address), their pause ms, in the order isolates first appear. */
function gcOf(mode) {
  const p = spawnSync(process.execPath, ['--trace-gc', join(here, 'profile.mjs'), outDir, mode, calls], { encoding: 'utf8', env: process.env });
  if (p.status !== 0) throw new Error(`gc ${mode} failed:\n${p.stderr}`);
  const isolates = new Map();
  // `[pid:0xaddr]  123 ms: Scavenge 29.3 (37.8) -> 21.4 (37.8) MB, 0.20 / 0.00 ms ...`
  for (const m of p.stdout.matchAll(/^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (Scavenge|Mark-Compact|Minor Mark-Compact)\b.*?MB, ([\d.]+) \//gm)) {
    const g = isolates.get(m[1]) ?? { gcs: 0, ms: 0 };
    g.gcs++;
    g.ms += Number(m[3]);
    isolates.set(m[1], g);
  }
  // The main isolate is the first to collect (loading tfjs), before any event reaches the writer.
  const [main = { gcs: 0, ms: 0 }, writer = { gcs: 0, ms: 0 }] = [...isolates.values()];
  return { main, writer };
}

const untraced = gcOf('untraced');
const traced = gcOf('traced');
process.stdout.write(JSON.stringify({ calls: Number(calls), encoder: process.env.DFTRACER_GZIP_ENCODER ?? 'zlib (default)', untraced, traced }) + '\n');
