/**
 * Reads a finished trace back with the analyzer: validates it, prints where the time went (I/O,
 * compute, other), the top files and kernels, writes the HTML report, and prints the commands that
 * do the same from the repository root.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { summarize, validateFiles, type Summary } from '@dftracer/analyzer';

const ms = (us: number) => (us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : `${(us / 1e3).toFixed(1)} ms`);
const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(0)} %` : '–');
const kib = (b: number) => (b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`);

/** The `dftracer` bin of the installed analyzer. */
export function analyzerCli(): string {
  const pkg = createRequire(import.meta.url).resolve('@dftracer/analyzer/package.json');
  return join(dirname(pkg), 'dist', 'cli.js');
}

export interface Analysis {
  summary: Summary;
  problems: number;
  report: string | null;
}

export async function analyze(file: string, opts: { report?: string; top?: number } = {}): Promise<Analysis> {
  const top = opts.top ?? 5;
  const v = await validateFiles([file]);
  console.log(`\ntrace ${file}`);
  console.log(`  ${v.events.toLocaleString('en')} events, ${kib(statSync(file).size)}: ${v.problems === 0 ? 'valid' : `${v.problems} problems`} (dftracer validate)`);

  const s = await summarize([file], { top });
  const t = s.totals;
  const wall = s.wall_us;
  console.log(`\nwhere the time went (wall ${ms(wall)})`);
  console.log(`  I/O      ${ms(t.io_us).padStart(10)}  ${pct(t.io_us, wall).padStart(5)}   read ${kib(s.bytes_read)}, wrote ${kib(s.bytes_written)}`);
  console.log(`  compute  ${ms(t.compute_us).padStart(10)}  ${pct(t.compute_us, wall).padStart(5)}`);
  console.log(`  other    ${ms(t.other_us).padStart(10)}  ${pct(t.other_us, wall).padStart(5)}   (in data loading and pipeline spans, with neither)`);
  if (t.idle_us > 0) console.log(`  idle     ${ms(t.idle_us).padStart(10)}  ${pct(t.idle_us, wall).padStart(5)}   (inside no event)`);
  if (t.overlap_us > 0) console.log(`  I/O and compute at once: ${ms(t.overlap_us)}`);

  // The counter tracks beside the events (memory, CPU, event loop, GC, tfjs tensors).
  for (const p of s.counters) {
    if (p.rss || p.heap_used) console.log(`\nmemory   rss peak ${p.rss ? kib(p.rss.peak) : '–'}, heap peak ${p.heap_used ? kib(p.heap_used.peak) : '–'}${p.tfjs ? `, tfjs peak ${p.tfjs.peak_tensors.toLocaleString('en')} tensors (${kib(p.tfjs.peak_bytes)})` : ''}`);
    if (p.cpu_pct || p.gc) console.log(`  CPU ${p.cpu_pct ? `mean ${p.cpu_pct.mean.toFixed(0)} %` : '–'}, GC ${p.gc ? `${ms(p.gc.pause_us)} (${(p.gc.share * 100).toFixed(1)} % of wall)` : '–'}`);
    if (p.tfjs) console.log(`  tensor leak: ${p.tfjs.verdict}`);
  }

  console.log(`\ntime by category`);
  for (const c of s.by_cat.filter((c) => c.cat !== 'dftracer')) console.log(`  ${c.cat.padEnd(12)} ${String(c.count).padStart(7)} events  ${ms(c.total_us).padStart(10)}`);

  console.log(`\ntop files (of ${s.files.length})`);
  for (const f of s.files.slice(0, top)) console.log(`  ${kib(f.bytes_read).padStart(10)} read in ${String(f.reads).padStart(3)} calls  ${ms(f.io_us).padStart(9)}  ${f.file}`);

  // dynamo's kernel events (function.<Kernel>), else the profiler's
  const dynamoKernels = s.by_name.filter((n) => n.cat === 'dynamo' && n.name.startsWith('function.'));
  const kernels = (dynamoKernels.length > 0 ? dynamoKernels : s.by_name.filter((n) => n.cat === 'PP')).sort((a, b) => b.total_us - a.total_us);
  const compute = kernels.length > 0 ? kernels : s.by_name.filter((n) => n.cat === 'compute').sort((a, b) => b.total_us - a.total_us);
  console.log(kernels.length > 0 ? '\ntop kernels' : '\ntop compute events');
  for (const n of compute.slice(0, top)) console.log(`  ${ms(n.total_us).padStart(10)}  ${String(n.count).padStart(6)} calls  ${n.cat}/${n.name}`);

  let report: string | null = null;
  if (opts.report) {
    const r = spawnSync(process.execPath, [analyzerCli(), 'report', file, '-o', opts.report, '--force'], { encoding: 'utf8' });
    if (r.status === 0) report = opts.report;
    else console.log(`\nthe report failed: ${(r.stderr || r.stdout).trim()}`);
  }
  if (report) console.log(`\nreport  ${report}`);
  console.log(`\nfrom the repository root:`);
  console.log(`  npx -y pnpm@9 dftracer validate ${file}`);
  console.log(`  npx -y pnpm@9 dftracer summary ${file}`);
  console.log(`  npx -y pnpm@9 dftracer report ${file} -o ${join(dirname(file), 'report.html')} --force`);
  console.log(`  or open the trace in https://ui.perfetto.dev`);
  return { summary: s, problems: v.problems, report };
}
