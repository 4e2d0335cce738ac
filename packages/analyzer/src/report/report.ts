/**
 * `dftracer report`: one self-contained HTML page (no network: Apache ECharts is inlined) with
 * - a zoomable timeline, one row group per pid/tid track, slices coloured by category, nested
 *   slices stacked by depth and partially overlapping ones on extra lane rows;
 * - counter charts (memory, CPU, event loop, GC, tfjs tensors) under the timeline, on its time axis;
 * - I/O and compute over time (average busy threads per time bin) and read/write bandwidth;
 * - bytes by file;
 * - the summary tables (processes, time by name, files, longest events).
 * Big traces are reduced for the browser: the timeline shows the longest `maxSlices` slices
 * (their ancestors are longer, so nesting stays intact) and says so.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { Duck, loadTraces, type DuckOptions, type ReadWarning } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { LaneAssigner } from '../export/lanes.js';
import { REPORT_CLIENT, REPORT_CSS } from './report-client.js';
import { counterSectionHtml, COUNTERS_CLIENT, COUNTERS_CSS } from './report-counters-client.js';
import { counterCharts, type CounterCharts } from './report-counters.js';
import { compareSummaries, summarizeBoth, type Comparison } from '../compare/compare.js';
import type { NameKey } from '../summary/name-rank.js';
import { computeSegmentsSql, summarize, summarizeLoaded, type Summary } from '../summary/summary.js';
import { checkOutputTarget, writeOutput, type OutputFile } from '../output/output-file.js';

export interface ReportOptions extends DuckOptions {
  /** Slices drawn on the timeline (default 100,000). */
  maxSlices?: number;
  /** Time bins of the over-time charts (default 400). */
  bins?: number;
  /** Rows of the top tables (default 20). */
  top?: number;
  /** Names kept one by one in the summary (default `NAMES_KEPT`); the rest are counted in one row. */
  namesKept?: number;
  title?: string;
  /** Categories counted as compute besides compute, dynamo and PP. */
  computeCats?: readonly string[];
  /** A second run's traces: the page gets a comparison section (this run as the base). */
  compareWith?: string[];
  /** Called as the work moves on (as `SummaryOptions.onStage`). */
  onStage?: (stage: string) => void;
}

export interface ReportTrack {
  pid: number;
  tid: number;
  label: string;
  /** First row of this track on the timeline, and how many rows (depths × lanes) it uses. */
  row: number;
  rows: number;
  slices: number;
}

export interface ReportData {
  title: string;
  generated: string;
  summary: Summary;
  /** Time zero of the page (µs since the epoch); slice times are relative to it. */
  t0: number;
  tracks: ReportTrack[];
  /** Per slice: row, start, end (µs from t0), cat index, name index, file index (-1: none); a JSON array in the page. */
  slices: Float64Array;
  cats: string[];
  names: string[];
  files: string[];
  totalSlices: number;
  /** Over time: bin width (µs) and, per bin, I/O and compute busy time (µs), bytes read, written. */
  binUs: number;
  io: number[];
  compute: number[];
  readBytes: number[];
  writeBytes: number[];
  /** Counter samples per chart, x in µs from t0. */
  counters: CounterCharts;
  /** This run against `compareWith`, when given. */
  comparison?: Comparison;
}

/** Collect the page's data from the loaded `ev` table; `keepNames`: names its tables keep besides the top ones (a compared run's). */
export async function reportData(duck: Duck, files: string[], opts: ReportOptions = {}, keepNames: readonly NameKey[] = []): Promise<ReportData> {
  const maxSlices = opts.maxSlices ?? 100_000;
  const nBins = opts.bins ?? 400;
  const summary = await summarizeLoaded(duck, files, { top: opts.top ?? 20, keepNames, ...(opts.namesKept !== undefined ? { namesKept: opts.namesKept } : {}), ...(opts.onStage ? { onStage: opts.onStage } : {}) });
  // (the kinds were fixed when the traces were loaded: writeReport passes computeCats there)
  // DuckDB's allocator keeps what each big query freed: given back before the next one, the
  // report's queries stay within the summary's peak rather than 20–40 MiB above it
  await duck.release();
  const t0 = summary.start_us;
  const wall = Math.max(1, summary.wall_us);

  // names of processes and threads
  const procName = new Map<number, string>();
  const threadName = new Map<string, string>();
  for (const p of summary.per_process) procName.set(p.pid, p.name ?? `pid ${p.pid}`);
  for (const r of await duck.all(`SELECT pid, tid, aname, avalue FROM ev WHERE ph = 'M' AND name = 'thread_name'`)) {
    // upstream DFTracer swaps name and value (name = the tid, value "thread_name"): no name there
    if (String(r.avalue) === 'thread_name') continue;
    const tid = r.avalue != null && /^\d+$/.test(String(r.avalue)) ? Number(r.avalue) : num(r.tid);
    threadName.set(`${num(r.pid)}:${tid}`, String(r.aname));
  }

  // the process once: our process_name records already say "app.mjs (8234)"
  const procLabel = (pid: number) => {
    const name = procName.get(pid) ?? `pid ${pid}`;
    return name.includes(String(pid)) ? name : `${name} (${pid})`;
  };
  const label = (pid: number, tid: number) => `${procLabel(pid)} · ${threadName.get(`${pid}:${tid}`) ?? (tid === pid ? 'main' : `tid ${tid}`)}`;

  // the longest slices, in track order, with their depth and lane
  // read as typed arrays, strings as indices into lists in order of first use (row objects of
  // 100,000 slices with distinct names held ~40 MiB); the top-N sort carries rowids only.
  // NULL pid, tid, ts or dur count as 0, as `num` reads them
  await duck.run(`CREATE OR REPLACE TEMP TABLE report_slices AS
    SELECT row_number() OVER (ORDER BY pid, tid, s, dur DESC, cat, name, file) AS rn, * FROM (
      SELECT pid, tid, ts - ${t0} AS s, dur, cat, name, coalesce(fh.path, e.fhash) AS file
      FROM ev e LEFT JOIN fh ON e.fhash = fh.hash
      WHERE e.rowid IN (SELECT rowid FROM ev WHERE ph = 'X' AND cat <> 'dftracer' ORDER BY dur DESC, ts LIMIT ${Math.max(0, Math.floor(maxSlices))}))`);
  const firstUsed = async (col: 'cat' | 'name' | 'file') => {
    await duck.run(`CREATE OR REPLACE TEMP TABLE report_${col}s AS SELECT ${col} AS v, row_number() OVER (ORDER BY min(rn)) - 1 AS i
      FROM report_slices ${col === 'file' ? 'WHERE file IS NOT NULL ' : ''}GROUP BY ${col}`);
    return (await duck.strings(`SELECT v FROM report_${col}s ORDER BY i`)).map(String);
  };
  const cats = await firstUsed('cat');
  const names = await firstUsed('name');
  const fileNames = await firstUsed('file');
  const {
    rows: nRows,
    columns: [pids, tids, starts, durs, catOf, nameOf, fileOf],
  } = await duck.numbers<[Float64Array, Float64Array, Float64Array, Float64Array, Int32Array, Int32Array, Int32Array]>(
    `SELECT coalesce(r.pid, 0)::DOUBLE, coalesce(r.tid, 0)::DOUBLE, coalesce(r.s, 0)::DOUBLE, coalesce(r.dur, 0)::DOUBLE, c.i::DOUBLE, n.i::DOUBLE, coalesce(f.i, -1)::DOUBLE
      FROM report_slices r JOIN report_cats c ON c.v IS NOT DISTINCT FROM r.cat JOIN report_names n ON n.v IS NOT DISTINCT FROM r.name
      LEFT JOIN report_files f ON f.v = r.file ORDER BY r.rn`,
    [Float64Array, Float64Array, Float64Array, Float64Array, Int32Array, Int32Array, Int32Array],
    maxSlices,
  );
  await duck.run('DROP TABLE report_slices; DROP TABLE report_cats; DROP TABLE report_names; DROP TABLE report_files');
  await duck.release();
  const [{ n: totalSlices = 0 } = {}] = await duck.all(`SELECT count(*) AS n FROM ev WHERE ph = 'X' AND cat <> 'dftracer'`);
  const tracks: ReportTrack[] = [];
  const slices = new Float64Array(6 * nRows);
  const laneOf = new Int32Array(nRows);
  const depthOf = new Int32Array(nRows);
  let i = 0;
  let nextRow = 0;
  while (i < nRows) {
    const pid = pids[i]!;
    const tid = tids[i]!;
    // one track: lanes of nesting stacks (a row per depth of each lane)
    const lanes = new LaneAssigner();
    const laneDepth: number[] = [];
    let j = i;
    for (; j < nRows && pids[j] === pid && tids[j] === tid; j++) {
      const s = starts[j]!;
      const lane = lanes.place(s, s + durs[j]!);
      laneDepth[lane] = Math.max(laneDepth[lane] ?? 0, lanes.depth + 1);
      laneOf[j] = lane;
      depthOf[j] = lanes.depth;
    }
    const laneRow: number[] = [];
    let acc = 0;
    for (const d of laneDepth) {
      laneRow.push(acc);
      acc += d;
    }
    for (let k = i; k < j; k++) {
      const o = 6 * k;
      slices[o] = nextRow + laneRow[laneOf[k]!]! + depthOf[k]!;
      slices[o + 1] = starts[k]!;
      slices[o + 2] = starts[k]! + durs[k]!;
      slices[o + 3] = catOf[k]!;
      slices[o + 4] = nameOf[k]!;
      slices[o + 5] = fileOf[k]!;
    }
    tracks.push({ pid, tid, label: label(pid, tid), row: nextRow, rows: Math.max(1, acc), slices: j - i });
    nextRow += Math.max(1, acc);
    i = j;
  }
  // tracks that have events but none among the longest slices still get a row
  for (const r of await duck.all(`SELECT DISTINCT pid, tid FROM ev WHERE ph = 'X' AND cat <> 'dftracer' ORDER BY pid, tid`)) {
    const pid = num(r.pid);
    const tid = num(r.tid);
    if (tracks.some((t) => t.pid === pid && t.tid === tid)) continue;
    tracks.push({ pid, tid, label: label(pid, tid), row: nextRow++, rows: 1, slices: 0 });
  }

  // over time: busy time of I/O and compute (self time) per bin, events cut at bin edges; bytes per bin
  const binUs = Math.max(1, Math.ceil(wall / nBins));
  const io = new Array<number>(nBins).fill(0);
  const compute = new Array<number>(nBins).fill(0);
  const readBytes = new Array<number>(nBins).fill(0);
  const writeBytes = new Array<number>(nBins).fill(0);
  await duck.release();
  const busy = await duck.all(`WITH k AS (
      SELECT ts - ${t0} AS s, ts + dur - ${t0} AS t, kind FROM ev WHERE ph = 'X' AND dur > 0 AND kind = 1
      UNION ALL
      SELECT ts - ${t0} AS s, te - ${t0} AS t, 2 AS kind FROM (${computeSegmentsSql()})
    ), x AS (
      SELECT kind, b, least(t, (b + 1) * ${binUs}) - greatest(s, b * ${binUs}) AS busy
      FROM (SELECT kind, s, t, unnest(range(s // ${binUs}, (t - 1) // ${binUs} + 1)) AS b FROM k)
    )
    SELECT b, kind, sum(busy) AS busy FROM x GROUP BY b, kind`);
  for (const r of busy) {
    const b = Math.min(nBins - 1, num(r.b));
    (num(r.kind) === 1 ? io : compute)[b]! += num(r.busy);
  }
  for (const r of await duck.all(`SELECT (ts - ${t0}) // ${binUs} AS b, sum(bytes) FILTER (WHERE op = 1) AS r, sum(bytes) FILTER (WHERE op = 2) AS w
      FROM ev WHERE ph = 'X' AND op > 0 GROUP BY b`)) {
    const b = Math.min(nBins - 1, num(r.b));
    readBytes[b]! += num(r.r);
    writeBytes[b]! += num(r.w);
  }

  await duck.release();
  const counters = await counterCharts(duck, files, t0, wall);
  return {
    title: opts.title ?? `DFTracer report: ${files.length === 1 ? basename(files[0]!) : `${files.length} traces`}`,
    generated: new Date().toISOString(),
    summary,
    t0,
    tracks,
    slices,
    cats,
    names,
    files: fileNames,
    totalSlices: num(totalSlices),
    binUs,
    io,
    compute,
    readBytes,
    writeBytes,
    counters,
  };
}

/** The ECharts bundle shipped in the `echarts` package. */
function echartsSource(): string {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve('echarts/dist/echarts.min.js'), 'utf8');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Make text safe inside a <script> element. */
function scriptSafe(s: string): string {
  return s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** Pieces of the page are gathered to about this many characters per write. */
const WRITE_CHARS = 1 << 20;
/** Elements of a big array serialised at a time. */
const JSON_ELEMENTS = 8192;

/**
 * `JSON.stringify(data)` in pieces: the top-level arrays (100,000 slices, their names) a slice at
 * a time, so neither the JSON nor the page is ever one string. Pieces end next to JSON
 * punctuation, which `scriptSafe`'s patterns never contain, so escaping each piece is the same as
 * escaping the whole.
 */
function* jsonPieces(data: object): Generator<string> {
  let sep = '{';
  for (const [key, value] of Object.entries(data)) {
    if (value instanceof Float64Array || (Array.isArray(value) && value.length > JSON_ELEMENTS)) {
      const list = value as ArrayLike<unknown> & { slice(a: number, b: number): ArrayLike<unknown> };
      yield `${sep}${JSON.stringify(key)}:[`;
      for (let i = 0; i < list.length; i += JSON_ELEMENTS) {
        const part = JSON.stringify(Array.from(list.slice(i, i + JSON_ELEMENTS)));
        yield `${i > 0 ? ',' : ''}${part.slice(1, -1)}`;
      }
      yield ']';
    } else {
      const json = JSON.stringify(value);
      if (json === undefined) continue; // as JSON.stringify leaves out undefined members
      yield `${sep}${JSON.stringify(key)}:${json}`;
    }
    sep = ',';
  }
  yield sep === '{' ? '{}' : '}';
}

/** The page's pieces: data and code inline, nothing fetched. */
function* reportPieces(data: ReportData): Generator<string> {
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(data.title)}</title>
<style>${REPORT_CSS}${COUNTERS_CSS}</style>
</head>
<body>
<header><h1>${escapeHtml(data.title)}</h1><p id="overview"></p></header>
<section><h2>Timeline</h2><p class="note" id="timeline-note"></p><div id="timeline" class="chart"></div>${counterSectionHtml(data.counters)}</section>
<section><h2>I/O and compute over time</h2><p class="note">Average busy threads per time bin (I/O: POSIX/STDIO calls; compute: self time of non-I/O events, outside their children), and read/write bandwidth.</p><div id="overtime" class="chart short"></div></section>
<section><h2>Bytes by file</h2><div id="files-chart" class="chart short"></div></section>
${data.comparison ? `<section><h2>Compared with another run</h2><p class="note">Other run: ${escapeHtml(data.comparison.variant.traces.length === 1 ? data.comparison.variant.traces[0]! : `${data.comparison.variant.traces.length} trace files`)}. Largest changes first.</p><div id="comparison"></div><h3>Self time by name, largest changes first</h3><div id="comparison-names"></div></section>` : ''}
<section><h2>By epoch</h2><p class="note">compute + data wait + I/O only + other + idle = wall; data wait is loader waits not overlapped by compute.</p><div id="epochs"></div></section>
<section><h2>Slowest steps</h2><div id="slow-steps"></div><details><summary>Every step (first 500)</summary><div id="steps"></div></details></section>
<section><h2>Processes</h2><div id="processes"></div></section>
<section><h2>Time by name</h2><p class="note">busy: wall time with at least one span running; self: the same outside their children; sum of spans: overlapping and nested spans added up.</p><div id="names"></div></section>
<section><h2>Files by directory</h2><div id="dirs"></div></section>
<section><h2>Files</h2><div id="files"></div></section>
<section><h2>Longest events</h2><div id="top"></div></section>
<footer>Generated by dftracer report on ${escapeHtml(data.generated)}. Charts: Apache ECharts (Apache-2.0), inlined.</footer>
<script id="report-data" type="application/json">`;
  for (const piece of jsonPieces(data)) yield scriptSafe(piece);
  yield `</script>
<script>${scriptSafe(echartsSource())}</script>
<script>${scriptSafe(COUNTERS_CLIENT)}</script>
<script>${scriptSafe(REPORT_CLIENT)}</script>
</body>
</html>
`;
}

/** Write the page to `out` in pieces of about `WRITE_CHARS`; returns its size in bytes. */
async function writeReportPage(data: ReportData, out: OutputFile): Promise<number> {
  let bytes = 0;
  let pending: string[] = [];
  let chars = 0;
  const flush = async () => {
    const text = pending.join('');
    pending = [];
    chars = 0;
    bytes += Buffer.byteLength(text);
    await out.write(text);
  };
  for (const piece of reportPieces(data)) {
    pending.push(piece);
    chars += piece.length;
    if (chars >= WRITE_CHARS) await flush();
  }
  await flush();
  return bytes;
}

export interface ReportResult {
  output: string;
  /** What reading left out of the figures (events with impossible times, unreadable records, a truncated gzip). */
  warnings: ReadWarning[];
  tracks: number;
  slices: number;
  totalSlices: number;
  bytes: number;
}

/** Load the traces, collect the data and write the page. */
export async function writeReport(files: string[], output: string, opts: ReportOptions = {}): Promise<ReportResult> {
  checkOutputTarget('report', output, [...files, ...(opts.compareWith ?? [])], true);
  // the page is written safely (a temporary file beside it, renamed when complete)
  return writeOutput('report', output, (file) => renderTo(file, files, output, opts));
}

/**
 * The page's data with the comparison against `other`: both runs keep the same names (each one's
 * top names and the other's), and only the other run is summarised again when that needs it.
 */
async function comparedData(duck: Duck, files: string[], opts: ReportOptions, other: string[]): Promise<ReportData> {
  const summarizeOther = (keep: NameKey[]) =>
    summarize(other, { threads: opts.threads, memoryLimit: opts.memoryLimit, keepNames: keep, ...(opts.namesKept !== undefined ? { namesKept: opts.namesKept } : {}), ...(opts.computeCats ? { computeCats: opts.computeCats } : {}) });
  let data: ReportData | undefined;
  const both = await summarizeBoth(summarizeOther, async (keep) => (data = await reportData(duck, files, opts, keep)).summary);
  const page = data!;
  page.comparison = compareSummaries(page.summary, both.twice.summary, { asked: { base: both.once.asked, variant: both.twice.asked } });
  return page;
}

async function renderTo(file: OutputFile, files: string[], output: string, opts: ReportOptions): Promise<ReportResult> {
  const duck = await Duck.open(opts);
  let warnings: ReadWarning[];
  let data: ReportData;
  try {
    opts.onStage?.('reading traces');
    warnings = (await loadTraces(duck, files, opts.computeCats ? { computeCats: opts.computeCats } : {})).warnings;
    data = opts.compareWith ? await comparedData(duck, files, opts, opts.compareWith) : await reportData(duck, files, opts);
  } finally {
    duck.close();
  }
  // written once DuckDB has given its memory back: the page's pieces come on top of the data alone
  const bytes = await writeReportPage(data, file);
  return { output, warnings, tracks: data.tracks.length, slices: data.slices.length / 6, totalSlices: data.totalSlices, bytes };
}
