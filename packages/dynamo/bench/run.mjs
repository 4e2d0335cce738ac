// `pnpm bench` for @dftracer/dynamo: the cost per traced kernel (cpu), a small CNN on the cpu and
// wasm backends and a CNN train step on WebGPU (Mesa's software renderer unless a GPU is there),
// each in its own process; dynamo's tracing and tf.profile as ratios to the untraced run measured
// in the same rounds.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const wanted = (process.env.BENCH_BACKENDS ?? 'wasm,cpu,webgpu').split(',');
const backends = wanted.filter((b) => b !== 'webgpu');

/** One backend's case in its own process; a case that fails or dies (even after printing) fails the bench. */
function runCase(b) {
  const p = spawnSync(process.execPath, [`${here}cnn.mjs`, b], { encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
  if (p.status !== 0) throw new Error(`bench on ${b} exited with ${p.status ?? p.signal}:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop() ?? '');
}

/** The per-kernel case (kernel.mjs) on cpu. */
function kernelCase() {
  const p = spawnSync(process.execPath, [`${here}kernel.mjs`, 'cpu'], { encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
  if (p.status !== 0) throw new Error(`kernel bench exited with ${p.status ?? p.signal}:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop() ?? '');
}

/** webgpu.mjs on Mesa's software renderer (its env below); null with the reason where WebGPU cannot start. */
function webgpuCase() {
  const env = { ...process.env, EGL_PLATFORM: 'surfaceless', DFTRACER_WEBGPU_DAWN_OPTIONS: 'backend=opengles', DFTRACER_WEBGPU_FEATURE_LEVEL: 'compatibility', BENCH_BIG: '0', BENCH_ROUNDS: '6', DFTRACER_ENABLE: '1' };
  const p = spawnSync(process.execPath, [`${here}webgpu.mjs`], { encoding: 'utf8', env, timeout: 600_000 });
  const line = (p.stdout ?? '').split('\n').find((l) => l.startsWith('WEBGPU_BENCH '));
  if (p.status !== 0 || line === undefined) return { skipped: (p.stderr || String(p.error ?? p.signal)).trim().split('\n').slice(-3).join(' ') };
  return JSON.parse(line.slice('WEBGPU_BENCH '.length));
}

const k = kernelCase();
const us = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(2)} µs`;
console.log(`per traced kernel (${k.backend}, tiny tf.add ×${k.kernels} in one compiled call; ${k.clock}, median of ${k.rounds} rounds of per-round differences to the raw call, ${k.rawUs.toFixed(2)} µs per raw kernel):`);
console.log(`| dynamo | goal | floor: hook + one core event per kernel, fixed args | kernel hook alone (no-op listener) | hooks in, function not compiled |`);
console.log(`|---|---|---|---|---|`);
console.log(`| ${us(k.dynamoUs)} | ≤ 0.35 µs | ${us(k.floorUs)} | ${us(k.hubUs)} | ${us(k.hookedUs)} |\n`);

const results = backends.map((b) => runCase(b));

const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
const perEvent = [];
const rows = [['figure', 'dynamo', 'goal', 'tf.profile (same rounds)', 'floor: hook + one core event per kernel', 'hooks in, model not compiled', 'untraced (ms per iteration)']];
for (const r of results) {
  for (const [name, what] of [
    ['forward', `forward pass, batch ${r.batch} (${r.kernelsPerForward} kernels)`],
    ['train', `train step (forward ${r.kernelsPerTrainForward} kernels + backward${r.frozen ? ', convs frozen' : ''})`],
  ]) {
    const c = r[name];
    rows.push([`${r.backend}: ${what}`, pct(c.dynamo), '≤ +5 %', pct(c.profile), pct(c.floor), pct(c.hooked), `${c.plainMs.toFixed(2)} ms`]);
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

if (wanted.includes('webgpu')) {
  const g = webgpuCase();
  if (g.skipped !== undefined) console.log(`\nwebgpu: skipped (${g.skipped})`);
  else {
    const r = g.small;
    console.log(`\nwebgpu (${g.adapter?.description ?? g.adapter?.vendor ?? 'adapter'}${g.adapter?.timestampQuery ? '' : ', no timestamp-query'}): CNN train step ${r.size}×${r.size}×3, batch ${r.batch}, wall time, median of ${r.rounds} per-round ratios`);
    console.log(`| untraced (ms) | dynamo, device time off | goal | ${r.ratio.dynamo_timestamp !== undefined ? 'dynamo, timestamps | ' : ''}tf.profile (same rounds) |`);
    console.log(`|---|---|---|${r.ratio.dynamo_timestamp !== undefined ? '---|' : ''}---|`);
    console.log(`| ${r.stepMs.untraced.toFixed(1)} | ${pct(r.ratio.dynamo_off)} | ≤ +5 % (≤ +1 % on a GPU) | ${r.ratio.dynamo_timestamp !== undefined ? `${pct(r.ratio.dynamo_timestamp)} | ` : ''}${pct(r.ratio.tf_profile)} |`);
  }
}
