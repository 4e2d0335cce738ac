// pnpm bench: validate and summary throughput on generated 1 M and 10 M event .pfw.gz traces,
// with peak RSS, next to the reference points measured in the same run.
// Options: --events N (largest trace, default 10000000), --fresh (regenerate the cached traces),
// --only validate,summary,duckdb,readline (the measurements to run; default all).
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, statSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CACHE, syntheticWriter } from './synthetic.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { events: { type: 'string' }, fresh: { type: 'boolean' }, only: { type: 'string' } } });
const only = new Set((values.only ?? 'validate,summary,duckdb,readline').split(','));
const big = Number(values.events ?? 10_000_000);
const sizes = [...new Set([Math.min(1_000_000, big), big])];
const cache = CACHE;
const writeSyntheticTrace = await syntheticWriter();
const traces = {};
for (const n of sizes) {
  const path = join(cache, `synthetic-${n}.pfw.gz`);
  if (values.fresh || !existsSync(path)) {
    const t0 = performance.now();
    process.stderr.write(`generating ${n.toLocaleString('en-US')} events in ${path} … `);
    const tmp = `${path}.part.pfw.gz`;
    writeSyntheticTrace({ path: tmp, events: n, seed: 42 });
    renameSync(tmp, path);
    process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  traces[n] = path;
}

function measure(what, file) {
  const r = spawnSync(process.execPath, [join(here, 'child.mjs'), what, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const fmtRate = (r) => `${(r.events / r.seconds / 1e6).toFixed(2)} M/s`;
const fmtRss = (r) => `${Math.round(r.maxRssMiB)} MiB`;
const fmtCpu = (r) => `${(r.cpuSeconds / (r.events / 1e6)).toFixed(2)} s`;
const rows = [];
const results = {};
for (const what of ['validate', 'summary', 'duckdb', 'readline'].filter((w) => only.has(w))) {
  for (const n of sizes) {
    if (what === 'readline' && n !== sizes[0]) continue; // the slow reference: the small trace is enough
    process.stderr.write(`${what} ${n.toLocaleString('en-US')} … `);
    const r = measure(what, traces[n]);
    if (r.events !== n) throw new Error(`${what} counted ${r.events} events, expected ${n}`);
    process.stderr.write(`${r.seconds.toFixed(2)} s\n`);
    results[`${what}:${n}`] = r;
  }
}

const bytes = (n) => statSync(traces[n]).size;
const label = (n) => `${(n / 1e6).toLocaleString('en-US')} M events (${(bytes(n) / 1048576).toFixed(0)} MiB gz)`;
const head = ['', ...sizes.map(label)];
const line = (name, f) => [name, ...sizes.map((n) => (results[`${f[0]}:${n}`] ? f[1](results[`${f[0]}:${n}`]) : '–'))];
rows.push(line('validate, events/s (target ≥ 1.5 M/s)', ['validate', fmtRate]));
rows.push(line('validate, peak RSS', ['validate', fmtRss]));
rows.push(line('summary, events/s (target ≥ 2.5 M/s)', ['summary', fmtRate]));
rows.push(line('summary, peak RSS', ['summary', fmtRss]));
rows.push(line('summary, CPU s per M events (all threads)', ['summary', fmtCpu]));
rows.push(line('ref: DuckDB read_json scan alone, events/s', ['duckdb', fmtRate]));
rows.push(line('ref: DuckDB scan, CPU s per M events', ['duckdb', fmtCpu]));
rows.push(line('ref: DuckDB scan, peak RSS', ['duckdb', fmtRss]));
rows.push(line('ref: Node readline + JSON.parse, events/s', ['readline', fmtRate]));
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const md = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
const base = results[`readline:${sizes[0]}`];
const v = results[`validate:${sizes[0]}`];
const s = results[`summary:${sizes[0]}`];
const ratio = (r) => (r && base ? (r.events / r.seconds / (base.events / base.seconds)).toFixed(2) : '–');
console.log(`\n${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} (availableParallelism ${availableParallelism()}), Node ${process.version}\n`);
console.log(md(head));
console.log(md(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(md(r));
for (const n of sizes) {
  const a = results[`summary:${n}`];
  const d = results[`duckdb:${n}`];
  if (a && d)
    console.log(
      `summary at ${(n / 1e6).toLocaleString('en-US')} M events: ${(a.events / a.seconds / (d.events / d.seconds)).toFixed(2)}× DuckDB's bare read_json scan in events/s, ` +
        `${(a.cpuSeconds / d.cpuSeconds).toFixed(2)}× its CPU seconds, ${fmtRate(a)} against the goal of 2.5 M/s`,
    );
}
if (base) console.log(`\nRatios to readline + JSON.parse on the same machine (targets ÷ its 0.55 M/s reference: validate ≥ 2.7×, summary ≥ 4.5×): validate ${ratio(v)}×, summary ${ratio(s)}×`);
