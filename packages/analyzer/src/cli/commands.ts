/** The `dftracer` commands: their options, help and the glue from flags to the library. */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { UsageError, UserError } from '../errors.js';
import { fmtCount } from '../format/numbers.js';
import { NAMES_KEPT } from '../summary/name-rank.js';
import { resolveInputs } from '../read/inputs.js';
import { checkOutputTarget } from '../output/output-file.js';
import { Progress } from './progress.js';
import { validateFiles, type FileValidation } from '../validate/validate.js';

type Values = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  summary: string;
  help: string;
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  run(values: Values, positionals: string[]): Promise<number>;
}

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Progress of a summary-like command on stderr: DuckDB's percentage with the stage as the note;
 * shown on a terminal, or anywhere with `--progress`.
 */
function stagedProgress(label: string, values: Values): { done(): void; callbacks: { onProgress?(p: number): void; onStage(s: string): void } } {
  const progress = new Progress(label, 100, 'percent', values.progress ? { enabled: true } : {});
  let percent = 0;
  let stage = '';
  const onStage = (s: string) => progress.update(percent, (stage = s));
  return {
    done: () => progress.done(),
    // no percentages asked of DuckDB when nothing is drawn: tracking them costs it CPU
    callbacks: progress.enabled ? { onProgress: (p) => progress.update((percent = p), stage), onStage } : { onStage },
  };
}

function intFlag(values: Values, name: string, def: number, min = 0): number {
  const v = values[name];
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min} (got "${String(v)}")`);
  return n;
}

/**
 * --threads N, capped at the cores: more threads than cores only add start-up and switching
 * (999 validate workers took 30 s on a 29-event file). The cap is said on stderr.
 */
function threadsFlag(values: Values, min: number): number | undefined {
  if (values.threads === undefined) return undefined;
  const n = intFlag(values, 'threads', min, min);
  const cores = availableParallelism();
  if (n <= cores) return n;
  process.stderr.write(`dftracer: note: --threads ${n} capped at ${cores}, the cores available\n`);
  return cores;
}

/** A comma-separated list (`--compute-cats io_wait,train`), or undefined when not given. */
function listFlag(values: Values, name: string): string[] | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const items = String(v)
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  if (items.length === 0) throw new UsageError(`--${name} needs a comma-separated list of categories (got "${String(v)}")`);
  return items;
}

function sizeFlag(values: Values, name: string): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(v)) throw new UsageError(`--${name} must be a size like 512MB or 2GB (got "${String(v)}")`);
  return v;
}

function totalBytes(files: string[]): number {
  let n = 0;
  for (const f of files) {
    try {
      n += statSync(f).size;
    } catch {
      /* reported when read */
    }
  }
  return n;
}

function display(file: string): string {
  const r = relative(process.cwd(), file);
  return r && !r.startsWith('..') && r.length < file.length ? r : file;
}

// ---- validate ------------------------------------------------------------------------------------

const validate: Command = {
  name: 'validate',
  summary: 'check traces: layout, nesting, hashes, end.num_events, overlapping slices',
  help: `Usage: dftracer validate [options] FILE… | DIR | GLOB

Checks each trace against the DFTracer layout and reports every kind of problem found, with
file and line: the "[" header and one JSON object per line with fields in order; ids unique
per process; p_idx naming an enclosing event of its process (and level = parent's + 1); every fhash/hhash/*_hash resolved
by FH/HH/SH metadata; start first and end last with a correct num_events; no partially
overlapping slices on one pid/tid; kernels on a GPU device track (args.device_track) one after
another; truncated or corrupt gzip.

Every layout DFTracer has written is accepted: numbers as strings (2023), integer hashes and a
closing "]" without newline (2024), 16-hex hashes (2025), num_events counting metadata or not,
several runs appended in one file (each checked on its own), dftracer_merge output (each
process's own ids, a blank line before "]"). What is genuine in upstream traces
but worth knowing is a warning: a trace without its end event (a killed process), an older
layout, ids used twice by a fork child, ids that start again (another run appended), a p_idx
naming a parent still open at finalize. --strict makes warnings errors.

Exit status: 0 when every file is valid, 1 when any problem is found, 2 for usage errors.

Options:
  --strict           warnings are errors: the file must be exactly the layout dftracer.js writes
  --max-problems N   problem and warning lines to print (default 20; each kind's count is
                     always in the verdict)
  --threads N        worker threads that scan in parallel (default: none on 1–2 cores, where
                     decompression and checking already use both; else one per extra core;
                     at most one per core)
  --json             print the full report as JSON
  -q, --quiet        print only the verdict line
  -h, --help         this help`,
  options: {
    ...HELP_FLAG,
    strict: { type: 'boolean' },
    'max-problems': { type: 'string' },
    threads: { type: 'string' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
  },
  async run(values, positionals) {
    const files = resolveInputs(positionals);
    const maxLines = intFlag(values, 'max-problems', 20);
    const threads = threadsFlag(values, 0);
    const total = totalBytes(files);
    const progress = new Progress('validate', total);
    let before = 0;
    let current = 0;
    let currentFile = '';
    const report = await validateFiles(files, {
      ...(threads !== undefined ? { threads } : {}),
      strict: values.strict === true,
      onProgress: (file, n) => {
        if (file !== currentFile) {
          before += current;
          current = 0;
          currentFile = file;
        }
        current = n;
        progress.update(before + current);
      },
    });
    progress.done();
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return report.problems > 0 ? 1 : 0;
    }
    const bad = report.files.filter((f) => f.problems.length > 0);
    const records = report.events + report.metadata;
    const rate = report.seconds > 0 ? `, ${fmtCount(records / report.seconds)} records/s` : '';
    const timing = `${report.seconds.toFixed(report.seconds < 10 ? 2 : 1)} s${rate}`;
    const nFiles = `${files.length} file${files.length === 1 ? '' : 's'}`;
    const checked = `${fmtCount(report.events)} event${report.events === 1 ? '' : 's'} and ${fmtCount(report.metadata)} metadata and counter record${report.metadata === 1 ? '' : 's'} checked`;
    const nWarnings = report.warnings > 0 ? `, ${fmtCount(report.warnings)} warning${report.warnings === 1 ? '' : 's'}` : '';
    if (!values.quiet) {
      // problem lines first, then warnings, --max-problems lines in all
      let printed = 0;
      let omitted = 0;
      const line = (text: string, count = 1) => {
        if (printed < maxLines) {
          process.stdout.write(`${text}\n`);
          printed++;
        } else omitted += count;
      };
      for (const f of bad) {
        for (const g of f.problems) {
          for (const ex of g.examples) line(`${display(f.file)}:${ex.line}: ${g.kind}: ${ex.message}`);
          const unseen = g.count - g.examples.length;
          if (unseen > 0) line(`${display(f.file)}: ${g.kind}: … and ${fmtCount(unseen)} more`, unseen);
        }
      }
      if (!values.strict) for (const f of report.files) for (const w of f.warnings) line(`${display(f.file)}: warning: ${w}`);
      if (omitted > 0) process.stdout.write(`… ${fmtCount(omitted)} more lines (--max-problems N to see more)\n`);
    }
    if (bad.length === 0) {
      process.stdout.write(`valid: ${nFiles}, ${checked}, no problems${nWarnings} (${timing})\n`);
      return 0;
    }
    const kinds = new Map<string, number>();
    for (const f of bad) for (const g of f.problems) kinds.set(g.kind, (kinds.get(g.kind) ?? 0) + g.count);
    const byKind = [...kinds].map(([k, n]) => `${k} ${fmtCount(n)}`).join(', ');
    process.stdout.write(
      `invalid: ${fmtCount(report.problems)} problem${report.problems === 1 ? '' : 's'} in ${bad.length} of ${nFiles} (${byKind})${nWarnings}; ${checked} in ${timing}\n`,
    );
    return 1;
  },
};

// ---- summary -------------------------------------------------------------------------------------

const ENGINE_HELP = `  --threads N        DuckDB threads (default and at most: one per core)
  --memory-limit S   DuckDB memory limit, e.g. 512MB or 4GB (default 64MB + 48MB a thread, at
                     least 160MB); it spills to a temporary directory beyond that`;

/** The options `ENGINE_HELP` describes, read by `engineFlags`. */
const ENGINE_FLAGS = { threads: { type: 'string' }, 'memory-limit': { type: 'string' } } as const;

const summary: Command = {
  name: 'summary',
  summary: 'time by cat/name, I/O bytes and bandwidth per file, I/O vs compute overlap',
  help: `Usage: dftracer summary [options] FILE… | DIR | GLOB

Wall time; time by category and by name (count, total, mean, p50, p99, max); bytes read and
written and bandwidth per file (names from FH metadata); time in I/O, in compute and in both at
once, per process and in total; the top files and the longest events.

Beside each category's and name's sum of spans (overlapping and nested spans add up, so it can
exceed the wall time): busy, the wall time with at least one of its spans running, and self,
the same outside their children (nested calls, by p_idx). Both are at most the wall time.

The run by epoch and by step (pipeline epoch* spans or DLIO _train spans; compute events with a
step arg, ProfilerStep#N, compute step or *.compute spans): wall, compute (with GPU device time),
data wait (loader *.iter / dataloader fetch waits not overlapped by compute), I/O, other, idle,
bytes read and a verdict; the slowest steps and what made them slow. Files are grouped by
directory when there are more than 20. A trace with GPU device tracks gets a device line.

Time is split as dfanalyzer does, extended for our integrations: I/O is cat POSIX/STDIO (and
io children of ai categories: io, io.*, *.io, *.io.*); compute is cat compute, dynamo or PP,
or name compute, cpu or *.compute (DLIO's TorchFramework.compute); the tracer's own "dftracer"
events are neither; everything else (loop waits, pipeline and epoch spans, readers) is "other",
its own figure: time inside such spans with neither I/O nor compute. I/O and compute times are
unions of intervals over all threads of a process; compute is the self time of compute events
(outside their children). Bytes are the ret of read/write calls.

Options:
  --json             print every figure as JSON (all names and files)
  --by epoch|step    only the epoch or the step view, every row (with --json: only that view)
  --files            list single files even when there are many
  --top N            rows in the files and longest-events tables (default 10)
  --names N          names kept one by one, most time first (default ${NAMES_KEPT}); the rest are
                     counted in one row
  --compute-cats A,B categories counted as compute besides compute, dynamo and PP
  --progress         progress on stderr (events read, sorted, swept) even when it is not a terminal
${ENGINE_HELP}
  -h, --help         this help`,
  options: {
    ...HELP_FLAG,
    json: { type: 'boolean' },
    by: { type: 'string' },
    files: { type: 'boolean' },
    top: { type: 'string' },
    names: { type: 'string' },
    'compute-cats': { type: 'string' },
    ...ENGINE_FLAGS,
    progress: { type: 'boolean' },
  },
  async run(values, positionals) {
    const files = resolveInputs(positionals);
    await assertTraces(files);
    const top = intFlag(values, 'top', 10);
    const by = byFlag(values);
    const computeCats = listFlag(values, 'compute-cats');
    const progress = stagedProgress('summary', values);
    const { formatSummary, summarize } = await import('../summary/summary.js');
    const s = await summarize(files, {
      top,
      namesKept: intFlag(values, 'names', NAMES_KEPT),
      ...(computeCats ? { computeCats } : {}),
      ...engineFlags(values),
      ...progress.callbacks,
    });
    progress.done();
    // what reading left out (impossible times, unreadable records, a truncated gzip): said in both forms
    const warnings = s.warnings.map((w) => `${display(w.file)}: ${w.message}`);
    for (const w of warnings) process.stderr.write(`dftracer: warning: ${w}\n`);
    if (values.json) {
      const view = by ? { traces: s.traces, wall_us: s.wall_us, totals: s.phases.totals, [by === 'epoch' ? 'epochs' : 'steps']: by === 'epoch' ? s.phases.epochs : s.phases.steps } : s;
      const extra = by === 'step' ? { step_source: s.phases.step_source, steps_left_out: s.phases.steps_left_out, median_step: s.phases.median_step, slowest_steps: s.phases.slowest_steps } : by === 'epoch' ? { epoch_source: s.phases.epoch_source } : {};
      process.stdout.write(`${JSON.stringify({ ...view, ...extra, warnings }, null, 2)}\n`);
    } else process.stdout.write(`${formatSummary(s, { top, files: Boolean(values.files), ...(by ? { by } : {}) })}\n${warnings.map((w) => `warning: ${w}\n`).join('')}`);
    return 0;
  },
};

function byFlag(values: Values): 'epoch' | 'step' | undefined {
  const v = values.by;
  if (v === undefined) return undefined;
  if (v !== 'epoch' && v !== 'step') throw new UsageError(`--by must be epoch or step (got "${String(v)}")`);
  return v;
}

// ---- compare -------------------------------------------------------------------------------------

const compare: Command = {
  name: 'compare',
  summary: 'two runs side by side: wall, compute, I/O, data wait, top names, with deltas',
  help: `Usage: dftracer compare [options] BASE VARIANT

BASE and VARIANT are each a trace file, a directory (every *.pfw[.gz] under it: all processes
of a run) or a quoted glob. Prints wall, compute, data wait, I/O, overlap, other, idle, mean
epoch and median step of both runs with the change, the largest changes first, then the names
whose self time changed most. Both runs keep the same names: each run's top --names by time
and the other run's, so every name listed has exact figures from both runs (0 calls: none in
that run); the rest are counted in one row per run.

Options:
  --json             the comparison as JSON
  --top N            names listed (default 20)
  --names N          names kept one by one in each run, most time first (default ${NAMES_KEPT}); both
                     runs keep the union of their top N
  --compute-cats A,B categories counted as compute besides compute, dynamo and PP
${ENGINE_HELP}
  -h, --help         this help`,
  options: {
    ...HELP_FLAG,
    json: { type: 'boolean' },
    top: { type: 'string' },
    names: { type: 'string' },
    'compute-cats': { type: 'string' },
    ...ENGINE_FLAGS,
  },
  async run(values, positionals) {
    if (positionals.length !== 2) throw new UsageError(`compare: give exactly two runs, BASE and VARIANT (got ${positionals.length}); quote globs`);
    const [baseFiles, variantFiles] = positionals.map((p) => resolveInputs([p])) as [string[], string[]];
    const top = intFlag(values, 'top', 20);
    const namesKept = intFlag(values, 'names', NAMES_KEPT);
    await assertTraces([...baseFiles, ...variantFiles]);
    const computeCats = listFlag(values, 'compute-cats');
    const { compareRuns, formatComparison } = await import('../compare/compare.js');
    const progress = new Progress('compare', 100, 'percent');
    const r = await compareRuns(baseFiles, variantFiles, { top, namesKept, ...(computeCats ? { computeCats } : {}), ...engineFlags(values), ...progress.percentOption() });
    progress.done();
    const c = r.comparison;
    const warnings = r.warnings.map((w) => `${display(w.file)}: ${w.message}`);
    for (const w of warnings) process.stderr.write(`dftracer: warning: ${w}\n`);
    process.stdout.write(values.json ? `${JSON.stringify({ ...c, warnings }, null, 2)}\n` : `${formatComparison(c, { labels: [display(positionals[0]!), display(positionals[1]!)] })}\n`);
    return 0;
  },
};

/**
 * Cheap checks before a DuckDB command: each input must look like a trace (line 1 "[" or a JSON
 * object) and its gzip must be complete; a clear one-line error otherwise. Reads each file once
 * (decompression only) for the gzip check, unless `full` is false.
 */
export async function assertTraces(files: string[]): Promise<void> {
  const { checkTraceFile } = await import('../read/check.js');
  for (const f of files) {
    const problem = await checkTraceFile(f);
    if (problem) throw new UserError(`${display(f)}: ${problem}`);
  }
}

/**
 * Check every gzip input for truncation while DuckDB works (DuckDB itself reads a truncated gzip
 * silently); each problem becomes a warning on stderr. A crashed process' trace keeps its complete
 * members, so the command still runs on what is there.
 */
export async function gzipChecks(files: string[]): Promise<string[]> {
  const { gzipProblem } = await import('../read/check.js');
  const warnings: string[] = [];
  for (const f of files) {
    const p = await gzipProblem(f);
    if (p) {
      const w = `${display(f)}: ${p}; only its complete part was read`;
      warnings.push(w);
      process.stderr.write(`dftracer: warning: ${w}\n`);
    }
  }
  return warnings;
}

// ---- merge ---------------------------------------------------------------------------------------

/**
 * The -o value: required, with one of the allowed endings; not an input, and not overwriting
 * without --force (checked against `inputs` when they are known: `checkOutput`).
 */
function outputFlag(values: Values, cmd: string, exts: RegExp, endings: string, example: string): string {
  const o = values.output;
  if (typeof o !== 'string' || o === '') throw new UsageError(`${cmd}: -o OUT is required (e.g. -o ${example})`);
  if (!exts.test(o)) throw new UsageError(`${cmd}: the output name must end with ${endings} (got ${o})`);
  checkOutputTarget(cmd, o, [], values.force === true);
  return o;
}

/** The output must not be one of the inputs (writing it would destroy what is being read). */
function checkOutput(values: Values, cmd: string, out: string, inputs: string[]): void {
  checkOutputTarget(cmd, out, inputs, values.force === true);
}

const merge: Command = {
  name: 'merge',
  summary: "one trace from many processes' files (ids kept unique, metadata kept)",
  help: `Usage: dftracer merge [options] FILE… | DIR | GLOB -o OUT.pfw[.gz]

Writes one trace holding every line of the inputs: one "[" line at the top, each file's
metadata and events after it. Ids of the second and later files are shifted (and their p_idx
with them) so that ids stay unique; a pid that an earlier file already used (another host) is
moved to a free one. With a .gz output the first input's gzip members are copied unchanged when
possible, and the rest is written as multi-member gzip. The result passes "dftracer validate"
when the inputs do. OUT is written to a temporary file beside it and renamed when complete
(an interrupted merge leaves nothing under its name); it cannot be one of the inputs.

Options:
  -o, --output OUT   the merged trace (.pfw or .pfw.gz)
  --force            overwrite OUT if it exists
  -h, --help         this help`,
  options: { ...HELP_FLAG, output: { type: 'string', short: 'o' }, force: { type: 'boolean' } },
  async run(values, positionals) {
    const out = outputFlag(values, 'merge', /\.pfw(\.gz)?$/, '.pfw or .pfw.gz', 'merged.pfw.gz');
    const files = resolveInputs(positionals);
    checkOutput(values, 'merge', out, files);
    await assertTraces(files);
    const { mergeTraces } = await import('../merge/merge.js');
    const progress = new Progress('merge', totalBytes(files));
    const r = await mergeTraces(files, out, { onProgress: (n) => progress.update(n) });
    progress.done();
    for (const w of r.warnings) process.stderr.write(`dftracer: warning: ${w}\n`);
    const remapped = r.remappedPids.length ? `; pid ${r.remappedPids.map(([, a, b]) => `${a}→${b}`).join(', ')} moved (already used by an earlier file)` : '';
    process.stdout.write(
      `merged ${files.length} file${files.length === 1 ? '' : 's'} into ${display(out)}: ${fmtCount(r.events)} events, ${fmtCount(r.metadata)} metadata lines${r.otherLines ? `, ${fmtCount(r.otherLines)} other lines` : ''}${remapped}\n`,
    );
    return 0;
  },
};

// ---- export --------------------------------------------------------------------------------------

const exportCmd: Command = {
  name: 'export',
  summary: 'to Perfetto / chrome://tracing JSON, or to Parquet for Spark, Dask and DuckDB',
  help: `Usage: dftracer export --perfetto [options] FILE… | DIR | GLOB -o OUT.json[.gz]
       dftracer export --parquet [options] FILE… | DIR | GLOB -o OUT.parquet

--perfetto writes a JSON array of the complete events that ui.perfetto.dev and chrome://tracing
load: processes and threads named from the metadata, slices that partially overlap on one
thread (concurrent async I/O) moved to extra "lane" threads next to it, args kept with the
event id and the file path of its fhash. Browsers handle a few million events at most.

--parquet writes the events table (the columns "dftracer query" shows: id, name, cat, pid,
tid, ts, dur, te, level, p_idx, hhash, fhash, file, count, offset, ret, size, args as JSON,
trace) as zstd-compressed Parquet, for Spark, Dask, pandas or DuckDB.

The format follows the flag, or the output name when no flag is given. OUT is written to a
temporary file beside it and renamed when complete; it cannot be one of the inputs.

Options:
  --perfetto         Perfetto / Chrome trace JSON (.json, or .json.gz compressed)
  --parquet          Parquet (.parquet)
  -o, --output OUT   output file
  --force            overwrite OUT if it exists
${ENGINE_HELP}
  -h, --help         this help`,
  options: {
    ...HELP_FLAG,
    perfetto: { type: 'boolean' },
    parquet: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
    ...ENGINE_FLAGS,
  },
  async run(values, positionals) {
    const o = typeof values.output === 'string' ? values.output : '';
    let format: 'perfetto' | 'parquet' | undefined = values.perfetto ? 'perfetto' : values.parquet ? 'parquet' : undefined;
    if (values.perfetto && values.parquet) throw new UsageError('export: choose one of --perfetto and --parquet');
    format ??= /\.json(\.gz)?$/.test(o) ? 'perfetto' : /\.parquet$/.test(o) ? 'parquet' : undefined;
    if (!format) throw new UsageError('export: give --perfetto (-o OUT.json[.gz]) or --parquet (-o OUT.parquet)');
    const out =
      format === 'perfetto'
        ? outputFlag(values, 'export --perfetto', /\.json(\.gz)?$/, '.json or .json.gz', 'trace.json.gz')
        : outputFlag(values, 'export --parquet', /\.parquet$/, '.parquet', 'events.parquet');
    const files = resolveInputs(positionals);
    checkOutput(values, `export --${format}`, out, files);
    await assertTraces(files);
    const engine = engineFlags(values);
    const progress = new Progress(`export`, 100, 'percent');
    const checks = gzipChecks(files);
    if (format === 'perfetto') {
      const { exportPerfetto } = await import('../export/export-perfetto.js');
      const r = await exportPerfetto(files, out, { ...engine, ...progress.percentOption() });
      progress.done();
      await checks;
      process.stdout.write(
        `wrote ${display(out)}: ${fmtCount(r.events)} events on ${fmtCount(r.tracks)} tracks of ${r.processes} process${r.processes === 1 ? '' : 'es'}` +
          `${r.lanes ? ` (${r.lanes} lane${r.lanes === 1 ? '' : 's'} for overlapping slices)` : ''}; open it at https://ui.perfetto.dev\n`,
      );
      if (r.events > 2_000_000) process.stderr.write('dftracer: warning: browsers struggle beyond a few million events; consider filtering with "dftracer query"\n');
    } else {
      const { exportParquet } = await import('../export/export-parquet.js');
      const r = await exportParquet(files, out, { ...engine, ...progress.percentOption() });
      progress.done();
      await checks;
      process.stdout.write(`wrote ${display(out)}: ${fmtCount(r.rows)} events\n`);
    }
    return 0;
  },
};

function engineFlags(values: Values): { threads?: number; memoryLimit?: string } {
  const out: { threads?: number; memoryLimit?: string } = {};
  const threads = threadsFlag(values, 1);
  if (threads !== undefined) out.threads = threads;
  const m = sizeFlag(values, 'memory-limit');
  if (m) out.memoryLimit = m;
  return out;
}

// ---- query ---------------------------------------------------------------------------------------

const query: Command = {
  name: 'query',
  summary: 'SQL over traces: tables events, metadata, files (DuckDB)',
  help: `Usage: dftracer query [options] "SQL" FILE… | DIR | GLOB

Runs SQL (DuckDB's dialect) over the traces, which appear as three tables:
  events    id, name, cat, pid, tid, ts, dur, te (= ts + dur, µs), level, p_idx, hhash, fhash,
            file (path from FH metadata), count, offset, ret, size, args (JSON: every arg;
            e.g. args->>'epoch'), trace (source file)
  metadata  trace, kind (HH, FH, SH, thread_name, process_name, CM…), pid, tid, name, value
  files     fhash, path

Examples:
  dftracer query "SELECT name, count(*), sum(dur) FROM events GROUP BY name ORDER BY 3 DESC" traces/
  dftracer query "SELECT file, sum(ret) AS bytes FROM events WHERE name = 'read' GROUP BY file" 'run/*.pfw.gz'

Options:
  --csv              CSV output (all rows)
  --json             JSON rows (all rows)
  --limit N          rows shown in the table (default 100)
${ENGINE_HELP}
  -h, --help         this help`,
  options: { ...HELP_FLAG, csv: { type: 'boolean' }, json: { type: 'boolean' }, limit: { type: 'string' }, ...ENGINE_FLAGS },
  async run(values, positionals) {
    const [sql, ...operands] = positionals;
    if (!sql) throw new UsageError('query: give the SQL first, then the traces (see dftracer query --help)');
    if (operands.length === 0) throw new UsageError('query: give trace files, a directory or a glob after the SQL');
    const files = resolveInputs(operands);
    await assertTraces(files);
    const { queryTraces, formatQueryResult } = await import('../query/query.js');
    const progress = new Progress('query', 100, 'percent');
    const checks = gzipChecks(files);
    const r = await queryTraces(sql, files, { ...engineFlags(values), ...progress.percentOption() });
    progress.done();
    await checks;
    const format = values.json ? 'json' : values.csv ? 'csv' : 'table';
    process.stdout.write(`${formatQueryResult(r, format, intFlag(values, 'limit', 100))}\n`);
    return 0;
  },
};

// ---- report --------------------------------------------------------------------------------------

const report: Command = {
  name: 'report',
  summary: 'one self-contained HTML page: timeline per track, I/O vs compute, files, tables',
  help: `Usage: dftracer report [options] FILE… | DIR | GLOB -o report.html

Writes one HTML page that works offline (the chart library is inlined): a zoomable timeline
with a row group per pid/tid track and slices coloured by category (nested calls stack down,
overlapping async calls get extra rows), I/O and compute over time with read/write bandwidth,
bytes by file, and the summary tables. For big traces the timeline shows the longest slices
(--max-slices); the charts and tables always cover every event.

Options:
  -o, --output FILE  the page (.html)
  --max-slices N     slices drawn on the timeline (default 100000)
  --bins N           time bins of the over-time chart (default 400)
  --title TEXT       page title
  --compute-cats A,B categories counted as compute besides compute, dynamo and PP
  --compare RUN      a second run (file, directory or glob): the page gets a comparison section
  --names N          names kept one by one in the tables, most time first (default ${NAMES_KEPT}); the
                     rest are counted in one row (with --compare: both runs keep the union of
                     their top N)
  --force            overwrite FILE if it exists
  --progress         progress on stderr (events read, sorted, swept) even when it is not a terminal
${ENGINE_HELP}
  -h, --help         this help`,
  options: {
    ...HELP_FLAG,
    compare: { type: 'string' },
    output: { type: 'string', short: 'o' },
    'max-slices': { type: 'string' },
    bins: { type: 'string' },
    title: { type: 'string' },
    'compute-cats': { type: 'string' },
    names: { type: 'string' },
    force: { type: 'boolean' },
    ...ENGINE_FLAGS,
    progress: { type: 'boolean' },
  },
  async run(values, positionals) {
    const out = outputFlag(values, 'report', /\.html?$/, '.html', 'report.html');
    const computeCats = listFlag(values, 'compute-cats');
    const files = resolveInputs(positionals);
    const compareFiles = typeof values.compare === 'string' ? resolveInputs([values.compare]) : undefined;
    checkOutput(values, 'report', out, [...files, ...(compareFiles ?? [])]);
    await assertTraces([...files, ...(compareFiles ?? [])]);
    const { writeReport } = await import('../report/report.js');
    const progress = stagedProgress('report', values);
    const r = await writeReport(files, out, {
      ...engineFlags(values),
      maxSlices: intFlag(values, 'max-slices', 100_000),
      bins: intFlag(values, 'bins', 400, 1),
      namesKept: intFlag(values, 'names', NAMES_KEPT),
      ...(typeof values.title === 'string' ? { title: values.title } : {}),
      ...(computeCats ? { computeCats } : {}),
      ...(compareFiles ? { compareWith: compareFiles } : {}),
      ...progress.callbacks,
    });
    progress.done();
    for (const w of r.warnings) process.stderr.write(`dftracer: warning: ${display(w.file)}: ${w.message}\n`);
    const shown = r.slices < r.totalSlices ? `the ${fmtCount(r.slices)} longest of ${fmtCount(r.totalSlices)} slices` : `${fmtCount(r.slices)} slices`;
    process.stdout.write(`wrote ${display(out)} (${(r.bytes / 1048576).toFixed(1)} MiB): ${r.tracks} track${r.tracks === 1 ? '' : 's'}, ${shown} on the timeline\n`);
    return 0;
  },
};

export const commands: Command[] = [validate, summary, compare, merge, exportCmd, query, report];

export type { FileValidation };
