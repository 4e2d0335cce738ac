// `pnpm bench` for @dftracer/dynamo: a small CNN on the cpu and wasm backends, each in its own
// process; dynamo's tracing and tf.profile as ratios to the untraced run measured in the same rounds.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const backends = (process.env.BENCH_BACKENDS ?? 'wasm,cpu').split(',');

/** One backend's case in its own process; a case that fails or dies (even after printing) fails the bench. */
function runCase(b) {
  const p = spawnSync(process.execPath, [`${here}cnn.mjs`, b], { encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
  if (p.status !== 0) throw new Error(`bench on ${b} exited with ${p.status ?? p.signal}:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop() ?? '');
}

const results = backends.map((b) => runCase(b));

const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
const perEvent = [];
const rows = [['figure', 'dynamo', 'goal', 'tf.profile (same rounds)', 'hooks in, model not compiled', 'untraced (ms per iteration)']];
for (const r of results) {
  for (const [name, what] of [
    ['forward', `forward pass, batch ${r.batch} (${r.kernelsPerForward} kernels)`],
    ['train', `train step (forward ${r.kernelsPerTrainForward} kernels + backward${r.frozen ? ', convs frozen' : ''})`],
  ]) {
    const c = r[name];
    rows.push([`${r.backend}: ${what}`, pct(c.dynamo), '≤ +5 %', pct(c.profile), pct(c.hooked), `${c.plainMs.toFixed(2)} ms`]);
    if (name === 'forward') perEvent.push(`${r.backend} ${(((c.dynamo - 1) * c.plainMs * 1000) / r.eventsPerForward).toFixed(1)} µs`);
  }
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
const line = (row) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(line(rows[0]));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows.slice(1)) console.log(line(row));
console.log(`\nmain-thread time added per event of a traced forward pass (${results[0].eventsPerForward} events: kernels, layers, the call): ${perEvent.join(', ')}`);
console.log(`${results[0].clock} time; median of ${results[0].rounds} per-round ratios; iterations per window: ${results.map((r) => `${r.backend} forward ${r.forward.iters}, train ${r.train.iters}`).join('; ')}; node ${process.version}`);
