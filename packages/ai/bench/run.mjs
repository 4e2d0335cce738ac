// `pnpm bench` for @dftracer/ai: the decorators' overhead on a real tfjs training step, every ai
// tracer on vs untraced, per backend in a fresh process; ratios measured in one run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(join(here, '../dist/index.js'))) throw new Error('build first: pnpm --filter @dftracer/ai... build');

function run(backend, kind) {
  const dir = mkdtempSync(join(tmpdir(), `dft-ai-bench-${backend}-`));
  const p = spawnSync(process.execPath, [join(here, 'step.mjs'), backend, kind, dir], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  if (p.status !== 0) throw new Error(`bench ${backend} ${kind} failed:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop());
}

const cases = [
  ['wasm', 'mlp', 'MLP 784-128-10, batch 32'],
  ['wasm', 'cnn', 'CNN conv8-pool-dense, 16×16, batch 32'],
  ['cpu', 'mlp', 'MLP 784-128-10, batch 32'],
  ['cpu', 'cnn', 'CNN conv8-pool-dense, 16×16, batch 32'],
];

/** event.mjs: one compute event around a tiny tf op, with and without tensor hooks. */
function eventCase() {
  const dir = mkdtempSync(join(tmpdir(), 'dft-ai-bench-event-'));
  const p = spawnSync(process.execPath, [join(here, 'event.mjs'), dir], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  if (p.status !== 0) throw new Error(`bench event failed:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop());
}
const f = (x, d = 1) => x.toFixed(d);
const pct = (r) => `${r >= 1 ? '+' : ''}${f((r - 1) * 100)} %`;
console.log(`\n@dftracer/ai bench (node ${process.version}, tfjs 4.22, every tracer on: ${'pipeline.train, pipeline.epoch.iter, dataloader.fetch.iter, data.item ×32, preprocess.collate, device.transfer, compute.step/backward/forward with tensor hooks, ai.update per step'})\n`);
const e = eventCase();
const us = (x) => `${x >= 0 ? '+' : ''}${f(x, 2)} µs`;
console.log(`one ai.compute.forward event around a tiny tf op (cpu, tf.add of scalars, ${f(e.rawUs, 2)} µs raw; ${e.clock}, median of ${e.rounds} per-round differences, ${e.calls} calls a round):`);
console.log('| per call, above the raw call | with useTf tensor hooks (out_shape, out_bytes, memory deltas) | goal | same event without hooks | floor: core dftFn, same step args |');
console.log('|---|---|---|---|---|');
console.log(`| main thread | ${us(e.hookedUs)} | ≤ +0.5 µs | ${us(e.plainUs)} | ${us(e.dftfnUs)} |`);
console.log(`| process (writer thread included) | ${us(e.hookedProcUs)} | — | — | ${us(e.dftfnProcUs)} |\n`);
/** gc.mjs: GC per isolate, untraced and with hooked events. */
function gcCase(encoder) {
  const dir = mkdtempSync(join(tmpdir(), 'dft-ai-bench-gc-'));
  const env = { ...process.env };
  if (encoder === undefined) delete env.DFTRACER_GZIP_ENCODER;
  else env.DFTRACER_GZIP_ENCODER = encoder;
  const p = spawnSync(process.execPath, [join(here, 'gc.mjs'), dir], { encoding: 'utf8', env });
  rmSync(dir, { recursive: true, force: true });
  if (p.status !== 0) throw new Error(`bench gc failed:\n${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop());
}
const gcs = [gcCase(undefined)];
const g = (x) => `${x.gcs} GCs, ${f(x.ms, 0)} ms`;
console.log(`GC pauses per isolate for ${gcs[0].calls} tiny tf ops (node --trace-gc; the writer formats text for zlib):`);
console.log('| encoder | untraced: program | untraced: writer | hooked events: program | hooked events: writer |');
console.log('|---|---|---|---|---|');
for (const r of gcs) console.log(`| ${r.encoder} | ${g(r.untraced.main)} | ${g(r.untraced.writer)} | ${g(r.traced.main)} | ${g(r.traced.writer)} |`);
console.log('');
const rows = cases.map(([backend, kind, label]) => [backend, label, run(backend, kind)]);
console.log('| backend | model | untraced step (CPU ms, reference) | traced, process CPU | traced, main thread | traced, wall | goal | tracing alone per event (main thread) | goal |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [backend, label, r] of rows) {
  console.log(`| ${backend} | ${label} | ${f(r.untracedCpuMs, 2)} | ${pct(r.cpuRatio)} | ${pct(r.mainRatio)} | ${pct(r.wallRatio)} | ≤ +2 % | ${f((r.tracingMainMs * 1000) / r.eventsPerStep, 2)} µs (${r.eventsPerStep} events) | ≤ 0.5 µs |`);
}
console.log('\nWhere a traced step\'s extra CPU goes (µs per step, medians over rounds; the tracers alone: the same tracers around no-op work):');
console.log('| backend | model | traced − untraced, process CPU | of it main thread | of it GC pauses | tracers alone, main thread | tracers alone, writer thread and GC helpers | tracers alone, GC pauses |');
console.log('|---|---|---|---|---|---|---|---|');
const u1 = (ms) => f(ms * 1000, 0);
for (const [backend, label, r] of rows) {
  console.log(`| ${backend} | ${label} | ${u1(r.deltaCpuMs)} | ${u1(r.deltaMainMs)} | ${u1(r.deltaGcMs)} | ${u1(r.tracingMainMs)} | ${u1(r.tracingCpuMs - r.tracingMainMs)} | ${u1(r.tracingGcMs)} |`);
}
console.log('\nCPU and wall: median over rounds of traced ÷ untraced, alternating in one process; process CPU includes the writer thread, main thread does not.');
console.log('Main-thread CPU is read from Linux schedstat, which moves in scheduler ticks (~4 ms): every timed stretch lasts ≥ 150 ms.');
