// The top functions by self time of a `.cpuprofile` (node --cpu-prof), with their share.
// Usage: node bench/top.mjs <file.cpuprofile> [count]
import { readFileSync } from 'node:fs';

const [, , file, count = '10'] = process.argv;
if (!file) throw new Error('usage: node bench/top.mjs <file.cpuprofile> [count]');
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
// Samples are node ids; timeDeltas the time before each sample (µs).
for (let i = 0; i < p.samples.length; i++) {
  const n = byId.get(p.samples[i]);
  const f = n.callFrame;
  const where = f.url ? `${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((s, x) => s + x, 0);
const rows = [...self].sort((x, y) => y[1] - x[1]).slice(0, Number(count));
console.log(`total ${(total / 1e3).toFixed(0)} ms sampled`);
for (const [k, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${k}`);
