// pnpm bench: per trace shape, validate, summary (plain and --by step), merge and DuckDB's bare
// read_json scan, each in a fresh process through the built CLI (pnpm build first), with wall and
// CPU seconds, the ratio to validate on the same file in the same run, and peak RSS.
// Shapes: the synthetic training loop at 1 M and 10 M events, 2 M events with a step arg on every
// event, 1 M events with a name each, 25 k events in one gzip member (and 1 M + 25 k merged);
// 50 M only with --events 50000000.
// Options: --events N (largest synthetic trace, default 10000000), --fresh (regenerate the cached
// traces), --rounds N (fastest of N, default 1), --only SHAPE,… (names as printed, by prefix).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CACHE, syntheticWriter } from './synthetic.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { events: { type: 'string' }, fresh: { type: 'boolean' }, rounds: { type: 'string' }, only: { type: 'string' } } });
const big = Number(values.events ?? 10_000_000);
const rounds = Math.max(1, Number(values.rounds ?? 1));
const M = (n) => `${(n / 1e6).toLocaleString('en-US')} M`;

const writeSyntheticTrace = await syntheticWriter();
/** A cached generated trace (seed 42), written on first use. */
function trace(name, opts) {
  const path = join(CACHE, name);
  if (values.fresh || !existsSync(path)) {
    const t0 = performance.now();
    process.stderr.write(`generating ${opts.events.toLocaleString('en-US')} events in ${path} … `);
    const tmp = `${path}.part.pfw.gz`;
    writeSyntheticTrace({ path: tmp, seed: 42, ...opts });
    renameSync(tmp, path);
    process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  return path;
}

const merged = join(CACHE, 'merged.pfw.gz');
/** The runs of one shape: [label, argv of the CLI or ['duckdb', file]]; the first is the reference (validate). */
function runs(files, { merge = true, extra = [] } = {}) {
  return [
    ['validate', ['validate', '-q', ...files]],
    ['summary', ['summary', ...files]],
    ['summary --by step', ['summary', '--by', 'step', ...files]],
    ...(merge ? [['merge → .pfw.gz', ['merge', ...files, '-o', merged, '--force']]] : []),
    ...extra,
    ...(files.length === 1 ? [["DuckDB's bare scan (read_json of the .gz)", ['duckdb', files[0]]]] : []),
  ];
}

const sizes = [...new Set([Math.min(1_000_000, big), Math.min(10_000_000, big), big])];
const shapes = [];
for (const n of sizes) {
  const file = trace(`synthetic-${n}.pfw.gz`, { events: n });
  const oneMember = n === sizes[0] ? trace('synthetic-25000-one-member.pfw.gz', { events: 25_000, memberBytes: 1 << 30 }) : null;
  shapes.push({
    name: `synthetic ${M(n)} events`,
    files: [file],
    // beside the plain merge (the input's gzip members copied): a second input rewritten and recompressed
    runs: runs([file], { extra: oneMember ? [['merge 25 k + this → .pfw.gz (this rewritten)', ['merge', oneMember, file, '-o', merged, '--force']]] : [] }),
  });
}
const steps = trace('synthetic-2000000-step-on-every-event.pfw.gz', { events: 2_000_000, stepOnEvery: true });
shapes.push({ name: '2 M events, a step arg on every event', files: [steps], runs: runs([steps]) });
const names = trace('synthetic-1000000-distinct-names.pfw.gz', { events: 1_000_000, distinctNames: true });
shapes.push({ name: '1 M events, a name each', files: [names], runs: runs([names]) });
const report = join(tmpdir(), `dftracer-bench-report-${process.pid}.html`);
shapes.at(-1).runs.splice(3, 0, ['report (HTML)', ['report', names, '-o', report, '--force']]);
const small = trace('synthetic-25000-one-member.pfw.gz', { events: 25_000, memberBytes: 1 << 30 });
shapes.push({ name: '25 k events in one gzip member', files: [small], runs: runs([small]) });

const only = values.only?.split(',');
const chosen = only ? shapes.filter((s) => only.some((o) => s.name.startsWith(o))) : shapes;
const resultFile = join(tmpdir(), `dftracer-bench-${process.pid}.json`);

function measure(argv) {
  const [what, ...args] = argv[0] === 'duckdb' ? argv : ['cli', ...argv];
  const p = spawnSync(process.execPath, ['--max-old-space-size=4096', join(here, 'child.mjs'), resultFile, what, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const r = JSON.parse(readFileSync(resultFile, 'utf8'));
  if (p.status !== 0 || r.code !== 0) throw new Error(`${argv.join(' ')} failed (${p.status}): ${p.stderr}`);
  return r;
}

console.log(`\n${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} (availableParallelism ${availableParallelism()}), Node ${process.version}; ${rounds === 1 ? 'one run each' : `fastest of ${rounds}`}`);
for (const shape of chosen) {
  const best = new Map();
  for (let r = 0; r < rounds; r++)
    for (const [label, argv] of shape.runs) {
      process.stderr.write(`${shape.name}: ${label} … `);
      const m = measure(argv);
      process.stderr.write(`${m.seconds.toFixed(2)} s\n`);
      if (!best.has(label) || m.seconds < best.get(label).seconds) best.set(label, m);
    }
  rmSync(merged, { force: true });
  const v = best.get('validate');
  const gz = shape.files.reduce((a, f) => a + statSync(f).size, 0);
  const html = best.has('report (HTML)') && existsSync(report) ? `; the report's HTML: ${(statSync(report).size / 1048576).toFixed(1)} MiB` : '';
  rmSync(report, { force: true });
  console.log(`\n${shape.name} (${(gz / 1048576).toFixed(0)} MiB gz)${html}\n`);
  console.log('| run | wall s | × validate | CPU s | × validate | peak RSS |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [label] of shape.runs) {
    const m = best.get(label);
    const x = (a, b) => (label === 'validate' ? '' : `${(a / b).toFixed(2)}×`);
    console.log(`| ${label} | ${m.seconds.toFixed(2)} | ${x(m.seconds, v.seconds)} | ${m.cpuSeconds.toFixed(2)} | ${x(m.cpuSeconds, v.cpuSeconds)} | ${Math.round(m.maxRssMiB)} MiB |`);
  }
}
rmSync(resultFile, { force: true });
