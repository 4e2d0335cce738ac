// `pnpm bench` for @dftracer/dynamo: a small CNN on the cpu and wasm backends, each in its own
// process; dynamo's tracing and tf.profile as ratios to the untraced run measured in the same rounds.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const backends = (process.env.BENCH_BACKENDS ?? 'wasm,cpu').split(',');

/**
 * Node 20 sometimes aborts in V8 (an assertion in NodePlatform::ForIsolate) when a worker thread
 * (the tracer's writer) is terminated while V8 compiles concurrently; the bench starts and stops a
 * tracer every round, so a case that dies that way before printing is run again.
 */
function runCase(b, attempt = 1) {
  const p = spawnSync(process.execPath, [`${here}cnn.mjs`, b], { encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
  const last = p.stdout.trim().split('\n').pop() ?? '';
  if (last.startsWith('{')) {
    if (p.status !== 0) console.error(`note: the ${b} process exited with ${p.status ?? p.signal} after printing its results`);
    return JSON.parse(last);
  }
  if (attempt < 3 && /Assertion failed/.test(p.stderr)) {
    console.error(`note: the ${b} process aborted in V8 (attempt ${attempt}); running it again`);
    return runCase(b, attempt + 1);
  }
  throw new Error(`bench on ${b} failed:\n${p.stderr}`);
}

const results = backends.map((b) => runCase(b));

const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
const rows = [['figure', 'dynamo', 'goal', 'tf.profile (same rounds)', 'hooks in, model not compiled', 'untraced (ms per iteration)']];
for (const r of results) {
  for (const [name, what] of [
    ['forward', `forward pass, batch ${r.batch} (${r.kernelsPerForward} kernels)`],
    ['train', `train step (forward ${r.kernelsPerTrainForward} kernels + backward${r.frozen ? ', convs frozen' : ''})`],
  ]) {
    const c = r[name];
    rows.push([`${r.backend}: ${what}`, pct(c.dynamo), '≤ +5 %', pct(c.profile), pct(c.hooked), `${c.plainMs.toFixed(2)} ms`]);
  }
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
const line = (row) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(line(rows[0]));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows.slice(1)) console.log(line(row));
console.log(`\n${results[0].clock} time; median of ${results[0].rounds} per-round ratios; iterations per window: ${results.map((r) => `${r.backend} forward ${r.forward.iters}, train ${r.train.iters}`).join('; ')}; node ${process.version}`);
