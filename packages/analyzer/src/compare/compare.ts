/**
 * `dftracer compare BASE VARIANT`: two runs side by side — wall, compute, I/O, data wait, idle,
 * epochs and steps, and the names whose self time changed most — with deltas, the largest
 * changes first. Each side is summarised on its own (files, globs or directories: every process
 * of a run), so the two runs never share memory. Both keep the same names (`summarizeBoth`): each
 * run's top names by time and the other's, so a name listed has exact figures from both runs.
 */
import { fmtBytes, fmtCount, fmtDuration } from '../format/numbers.js';
import { renderTable } from '../format/table.js';
import { terminalSafe } from '../format/terminal-safe.js';
import type { ReadWarning } from '../read/duck.js';
import { nameKey, type NameKey, type NamesLeftOut } from '../summary/name-rank.js';
import { summarize, type Summary, type SummaryOptions } from '../summary/summary.js';

export interface CompareRow {
  figure: string;
  /** µs, or bytes for `read`/`written`, or a count. */
  unit: 'us' | 'bytes' | 'count';
  /** null: the side has no such view (no epochs, no steps); `missing` says which. */
  base: number | null;
  variant: number | null;
  /** variant − base; null when either side lacks the view. */
  delta: number | null;
  /** delta ÷ base (null when base is 0 or a side lacks the view). */
  ratio: number | null;
  /** The view the figure belongs to, when a run may lack it. */
  view?: 'epochs' | 'steps';
  /** The sides without that view: the row compares nothing. */
  missing?: Array<'base' | 'variant'>;
}

export interface NameDelta {
  cat: string;
  name: string;
  base_self_us: number;
  variant_self_us: number;
  delta_us: number;
  /** Calls (0: no such event in that run). */
  base_count: number;
  variant_count: number;
  /** Sum of its spans. */
  base_total_us: number;
  variant_total_us: number;
}

export interface Comparison {
  base: { traces: string[]; verdict: string };
  variant: { traces: string[]; verdict: string };
  /** Run-level figures, largest absolute change first (wall first). */
  figures: CompareRow[];
  /** Names by the change in self time, largest absolute change first. */
  names: NameDelta[];
  /** Per run, the names not in `names` (unchanged, beyond `top`, or not kept one by one) counted together; the tracer's own left aside. */
  other_names: { base: NamesLeftOut; variant: NamesLeftOut };
}

export interface CompareOptions {
  /** Names listed (default 20). */
  top?: number;
  /**
   * The names each summary was asked to keep (`SummaryOptions.keepNames`): one of them missing
   * from its `by_name` has no events in that run. Without it, a name one run left out (it kept
   * only its top names) is not listed, but counted in that run's other names.
   */
  asked?: { base?: readonly NameKey[]; variant?: readonly NameKey[] };
}

const row = (figure: string, unit: CompareRow['unit'], base: number, variant: number): CompareRow => ({
  figure,
  unit,
  base,
  variant,
  delta: variant - base,
  ratio: base !== 0 ? (variant - base) / base : null,
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A figure of a view one side may lack (`null` there): never a change against a zero it did not measure. */
const viewRow = (view: 'epochs' | 'steps', figure: string, base: number | null, variant: number | null): CompareRow => {
  if (base !== null && variant !== null) return { ...row(figure, 'us', base, variant), view };
  const missing = [...(base === null ? ['base' as const] : []), ...(variant === null ? ['variant' as const] : [])];
  return { figure, unit: 'us', base, variant, delta: null, ratio: null, view, missing };
};

/** Compare two summaries. */
export function compareSummaries(a: Summary, b: Summary, opts: CompareOptions = {}): Comparison {
  const pa = a.phases;
  const pb = b.phases;
  const figures = [
    row('compute', 'us', pa.totals.compute_us, pb.totals.compute_us),
    row('data wait', 'us', pa.totals.wait_us, pb.totals.wait_us),
    row('I/O (busy)', 'us', pa.totals.io_us, pb.totals.io_us),
    row('I/O only', 'us', pa.totals.io_only_us, pb.totals.io_only_us),
    row('overlap', 'us', pa.totals.overlap_us, pb.totals.overlap_us),
    row('other', 'us', pa.totals.other_us, pb.totals.other_us),
    row('idle', 'us', pa.totals.idle_us, pb.totals.idle_us),
    viewRow('epochs', 'mean wall of an epoch', pa.epochs.length ? mean(pa.epochs.map((e) => e.wall_us)) : null, pb.epochs.length ? mean(pb.epochs.map((e) => e.wall_us)) : null),
    viewRow('steps', 'median wall of a step', pa.median_step?.wall_us ?? null, pb.median_step?.wall_us ?? null),
    viewRow('steps', 'median data wait of a step', pa.median_step?.wait_us ?? null, pb.median_step?.wait_us ?? null),
    row('read', 'bytes', a.bytes_read, b.bytes_read),
    row('written', 'bytes', a.bytes_written, b.bytes_written),
    row('events', 'count', a.events, b.events),
  ];
  // views neither side has say nothing; those one side lacks go after the changes
  const shown = figures.filter((f) => f.missing?.length !== 2);
  const timeRows = shown.filter((f) => f.unit === 'us').sort((x, y) => (y.delta === null ? -1 : Math.abs(y.delta)) - (x.delta === null ? -1 : Math.abs(x.delta)));
  const others = shown.filter((f) => f.unit !== 'us');
  const { names, other_names } = compareNames(a, b, opts);
  return {
    base: { traces: a.traces, verdict: pa.totals.verdict },
    variant: { traces: b.traces, verdict: pb.totals.verdict },
    figures: [row('wall', 'us', a.wall_us, b.wall_us), ...timeRows, ...others],
    names,
    other_names,
  };
}

/** A run's names one by one, the tracer's own left aside. */
const hostNames = (s: Summary) => s.by_name.filter((n) => n.cat !== 'dftracer');

/**
 * The names whose self time changed most, from those both runs have exact figures for: kept in
 * the run's `by_name`, or known to be absent there (asked for, or the run left no name out).
 */
function compareNames(a: Summary, b: Summary, opts: CompareOptions): Pick<Comparison, 'names' | 'other_names'> {
  const known = (s: Summary, asked: readonly NameKey[] = []) => {
    const have = new Set([...s.by_name, ...asked].map((n) => nameKey(n.cat, n.name)));
    return (k: string) => s.names_left_out.names === 0 || have.has(k);
  };
  const inA = known(a, opts.asked?.base);
  const inB = known(b, opts.asked?.variant);
  const names = new Map<string, NameDelta>();
  const entry = (cat: string, name: string) => {
    const k = nameKey(cat, name);
    let d = names.get(k);
    if (!d && inA(k) && inB(k)) {
      d = { cat, name, base_self_us: 0, variant_self_us: 0, delta_us: 0, base_count: 0, variant_count: 0, base_total_us: 0, variant_total_us: 0 };
      names.set(k, d);
    }
    return d;
  };
  for (const n of hostNames(a)) {
    const d = entry(n.cat, n.name);
    if (d) Object.assign(d, { base_self_us: n.self_us, base_count: n.count, base_total_us: n.total_us });
  }
  for (const n of hostNames(b)) {
    const d = entry(n.cat, n.name);
    if (d) Object.assign(d, { variant_self_us: n.self_us, variant_count: n.count, variant_total_us: n.total_us });
  }
  for (const d of names.values()) d.delta_us = d.variant_self_us - d.base_self_us;
  const listed = [...names.values()]
    .filter((d) => d.delta_us !== 0)
    .sort((x, y) => Math.abs(y.delta_us) - Math.abs(x.delta_us) || x.name.localeCompare(y.name))
    .slice(0, opts.top ?? 20);
  const shown = new Set(listed.map((d) => nameKey(d.cat, d.name)));
  // what a run's names not listed add up to: those it did not keep, and those kept but not listed
  const other = (s: Summary): NamesLeftOut => {
    const o = { ...s.names_left_out };
    for (const n of hostNames(s))
      if (!shown.has(nameKey(n.cat, n.name))) {
        o.names++;
        o.count += n.count;
        o.total_us += n.total_us;
      }
    return o;
  };
  return { names: listed, other_names: { base: other(a), variant: other(b) } };
}

/** One run summarised keeping, besides its own top names, the names `keep` (the other run's). */
export type SummarizeRun = (keep: NameKey[]) => Promise<Summary>;

export interface PairedSummary {
  summary: Summary;
  /** The names it was asked to keep besides its own top ones (for `CompareOptions.asked`). */
  asked: NameKey[];
}

/**
 * Two runs summarised over the same names: each keeps its own top names and the other's, so
 * every name a comparison lists has exact figures from both. `twice` is summarised again only
 * when the other run kept names that `twice` had left out (it had more names than it keeps).
 */
export async function summarizeBoth(twice: SummarizeRun, once: SummarizeRun): Promise<{ twice: PairedSummary; once: PairedSummary }> {
  let first = await twice([]);
  const own = hostNames(first).map(({ cat, name }) => ({ cat, name }));
  const second = await once(own);
  const have = new Set(first.by_name.map((n) => nameKey(n.cat, n.name)));
  const extra = hostNames(second)
    .filter((n) => !have.has(nameKey(n.cat, n.name)))
    .map(({ cat, name }) => ({ cat, name }));
  let asked: NameKey[] = [];
  // (a run that kept every name it has knows the others are absent from it)
  if (extra.length > 0 && first.names_left_out.names > 0) {
    first = await twice(extra);
    asked = extra;
  }
  return { twice: { summary: first, asked }, once: { summary: second, asked: own } };
}

/** Both runs summarised over the same names and compared; with what reading left out of either. */
export async function compareRuns(
  baseFiles: string[],
  variantFiles: string[],
  opts: Omit<SummaryOptions, 'keepNames'> & { top?: number } = {},
): Promise<{ comparison: Comparison; warnings: ReadWarning[] }> {
  const { top, ...summaryOpts } = opts;
  const run = (files: string[]): SummarizeRun => (keep) => summarize(files, { ...summaryOpts, keepNames: keep });
  const { twice: base, once: variant } = await summarizeBoth(run(baseFiles), run(variantFiles));
  const comparison = compareSummaries(base.summary, variant.summary, { ...(top !== undefined ? { top } : {}), asked: { base: base.asked, variant: variant.asked } });
  return { comparison, warnings: [...base.summary.warnings, ...variant.summary.warnings] };
}

const fmtUnit = (unit: CompareRow['unit'], v: number) => (unit === 'us' ? fmtDuration(Math.abs(v)) : unit === 'bytes' ? fmtBytes(Math.abs(v)) : fmtCount(Math.abs(v)));
const signed = (unit: CompareRow['unit'], v: number) => (v === 0 ? '0' : `${v > 0 ? '+' : '−'}${fmtUnit(unit, v)}`);
const ratioText = (r: number | null) => (r === null ? '' : `${r >= 0 ? '+' : '−'}${Math.abs(100 * r).toFixed(r !== 0 && Math.abs(r) < 0.1 ? 1 : 0)}%`);
/** The change column: the change, or which side has no such view. */
function changeCells(f: CompareRow, labels: [string, string]): [string, string, string, string] {
  const [la, lb] = labels;
  if (f.missing?.length) {
    const lacking = f.missing.map((m) => (m === 'base' ? la : lb)).join(' and ');
    return [f.base === null ? '–' : fmtUnit(f.unit, f.base), f.variant === null ? '–' : fmtUnit(f.unit, f.variant), `no ${f.view} in ${lacking}`, ''];
  }
  return [fmtUnit(f.unit, f.base!), fmtUnit(f.unit, f.variant!), signed(f.unit, f.delta!), ratioText(f.ratio)];
}

/** The comparison as text tables. */
export function formatComparison(c: Comparison, opts: { labels?: [string, string] } = {}): string {
  const [la, lb] = opts.labels ?? ['base', 'variant'];
  const out: string[] = [];
  out.push(`${la}: ${c.base.traces.length} trace file${c.base.traces.length === 1 ? '' : 's'}; ${c.base.verdict}`);
  out.push(`${lb}: ${c.variant.traces.length} trace file${c.variant.traces.length === 1 ? '' : 's'}; ${c.variant.verdict}`);
  out.push('');
  out.push('Run figures (summed over processes): wall, then times by the size of their change, then bytes and events');
  out.push(
    renderTable(
      ['', la, lb, 'change', ''],
      c.figures.map((f) => [f.figure, ...changeCells(f, [la, lb])]),
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  if (c.names.length) {
    out.push('');
    out.push('Self time by name, largest changes first');
    out.push(
      renderTable(
        ['cat', 'name', la, lb, 'change', 'calls'],
        c.names.map((n) => [n.cat, n.name, fmtDuration(n.base_self_us), fmtDuration(n.variant_self_us), signed('us', n.delta_us), n.base_count === n.variant_count ? String(n.base_count) : `${n.base_count} → ${n.variant_count}`]),
        ['l', 'l', 'r', 'r', 'r', 'r'],
      ),
    );
  }
  const rest = formatOtherNames(c.other_names, [la, lb]);
  if (rest) out.push(rest);
  return terminalSafe(out.join('\n'));
}

/** The line of the names not listed, per run (empty when there are none). */
function formatOtherNames(o: Comparison['other_names'], labels: [string, string]): string {
  if (o.base.names === 0 && o.variant.names === 0) return '';
  const side = (label: string, r: NamesLeftOut) => `${label} ${fmtCount(r.names)} name${r.names === 1 ? '' : 's'}, ${fmtCount(r.count)} calls, sum of spans ${fmtDuration(r.total_us)}`;
  return `Other names (unchanged, beyond --top, or below both runs' top --names): ${side(labels[0], o.base)}; ${side(labels[1], o.variant)}`;
}
