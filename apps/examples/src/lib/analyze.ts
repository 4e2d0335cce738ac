/**
 * Reads a finished trace back with the analyzer: validates it, prints where the time went (compute,
 * data wait, I/O, idle) with a verdict, each epoch and the slowest steps, busy and self time by
 * category, files by directory and the top kernels, writes the HTML report, and prints the commands
 * that do the same from the repository root.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { summarize, terminalSafe, validateFiles, type Summary } from '@dftracer/analyzer';

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
  const ph = s.phases.totals;
  const wall = s.wall_us;
  console.log(`\nwhere the time went (wall ${ms(wall)}): ${ph.verdict}`);
  console.log(`  compute    ${ms(ph.compute_us).padStart(10)}  ${pct(ph.compute_us, wall).padStart(5)}${s.device ? '   (GPU device time included)' : ''}`);
  console.log(`  data wait  ${ms(ph.wait_us).padStart(10)}  ${pct(ph.wait_us, wall).padStart(5)}   (the loader kept the step waiting)`);
  console.log(`  I/O only   ${ms(ph.io_only_us).padStart(10)}  ${pct(ph.io_only_us, wall).padStart(5)}   (I/O ${ms(t.io_us)} in all, read ${kib(s.bytes_read)}, wrote ${kib(s.bytes_written)})`);
  console.log(`  other      ${ms(ph.other_us).padStart(10)}  ${pct(ph.other_us, wall).padStart(5)}   (preprocessing, evaluation…)`);
  console.log(`  idle       ${ms(ph.idle_us).padStart(10)}  ${pct(ph.idle_us, wall).padStart(5)}`);
  if (s.device) console.log(`  device: busy ${ms(s.device.busy_us)} (${pct(s.device.busy_us, wall)}), top kernels ${s.device.kernels.slice(0, 3).map((k) => `${terminalSafe(k.name, { oneLine: true })} ${ms(k.device_us)}`).join(', ')}`);

  if (s.phases.epochs.length > 0) {
    console.log(`\nby epoch            wall     compute   data wait   read`);
    for (const e of s.phases.epochs)
      console.log(`  ${e.label.padEnd(10)} ${ms(e.wall_us).padStart(10)} ${ms(e.compute_us).padStart(10)} ${ms(e.wait_us).padStart(10)}  ${kib(e.bytes_read)}  ${e.verdict}`);
  }
  if (s.phases.median_step) {
    const steps = s.phases.steps.length + s.phases.steps_left_out;
    console.log(`\n${steps} steps; median wall of a step ${ms(s.phases.median_step.wall_us)}; the slowest (most wall first):`);
    for (const x of s.phases.slowest_steps.slice(0, 3)) console.log(`  ${x.label.padEnd(18)} ${ms(x.wall_us).padStart(10)}  ${x.reason}`);
  }
  // The counter tracks beside the events (memory, CPU, event loop, GC, tfjs tensors).
  for (const p of s.counters) {
    if (p.rss || p.heap_used) console.log(`\nmemory   rss peak ${p.rss ? kib(p.rss.peak) : '–'}, heap peak ${p.heap_used ? kib(p.heap_used.peak) : '–'}${p.tfjs ? `, tfjs peak ${p.tfjs.peak_tensors.toLocaleString('en')} tensors (${kib(p.tfjs.peak_bytes)})` : ''}`);
    if (p.cpu_pct || p.gc) console.log(`  CPU ${p.cpu_pct ? `mean ${p.cpu_pct.mean.toFixed(0)} %` : '–'}, GC ${p.gc ? `${ms(p.gc.pause_us)} (${(p.gc.share * 100).toFixed(1)} % of wall)` : '–'}`);
    if (p.tfjs) console.log(`  tensor leak: ${p.tfjs.verdict}`);
  }


  console.log(`\ntime by category, most self time first      busy       self   (sum of spans)`);
  for (const c of s.by_cat.filter((c) => c.cat !== 'dftracer').sort((a, b) => b.self_us - a.self_us))
    console.log(`  ${terminalSafe(c.cat, { oneLine: true }).padEnd(12)} ${ms(c.busy_us).padStart(10)} ${ms(c.self_us).padStart(10)}   (${ms(c.total_us)} over ${c.count} events)`);

  const nFiles = s.files.length + s.files_left_out;
  console.log(`\nfiles: ${nFiles} in ${s.file_groups.length} director${s.file_groups.length === 1 ? 'y' : 'ies'}, most bytes read and written first`);
  for (const g of s.file_groups.slice(0, top))
    console.log(`  ${String(g.files).padStart(5)} files ${kib(g.bytes_read).padStart(10)} read ${kib(g.bytes_written).padStart(10)} written  I/O busy ${ms(g.busy_us).padStart(9)}  ${terminalSafe(g.dir, { oneLine: true })}`);

  // dynamo's kernels by self time (function.<Kernel>), else the profiler's
  const dynamoKernels = s.by_name.filter((n) => n.cat === 'dynamo' && n.name.startsWith('function.'));
  const kernels = (dynamoKernels.length > 0 ? dynamoKernels : s.by_name.filter((n) => n.cat === 'PP')).sort((a, b) => b.self_us - a.self_us);
  const compute = kernels.length > 0 ? kernels : s.by_name.filter((n) => n.cat === 'compute').sort((a, b) => b.self_us - a.self_us);
  console.log(kernels.length > 0 ? '\ntop kernels (self time)' : '\ntop compute events (self time)');
  for (const n of compute.slice(0, top)) console.log(`  ${ms(n.self_us).padStart(10)}  ${String(n.count).padStart(6)} calls  ${terminalSafe(`${n.cat}/${n.name}`, { oneLine: true })}`);

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
  console.log(`  npx -y pnpm@9 dftracer summary --by step ${file}`);
  console.log(`  npx -y pnpm@9 dftracer report ${file} -o ${join(dirname(file), 'report.html')} --force`);
  console.log(`  or open the trace in https://ui.perfetto.dev`);
  return { summary: s, problems: v.problems, report };
}
