/**
 * `dftracer compare BASE VARIANT`: two runs side by side — wall, compute, I/O, data wait, idle,
 * epochs and steps, and the names whose self time changed most — with deltas, the largest
 * changes first. Each side is summarised on its own (files, globs or directories: every process
 * of a run), so the two runs never share memory.
 */
import { fmtBytes, fmtCount, fmtDuration } from '../format/numbers.js';
import { renderTable } from '../format/table.js';
import { terminalSafe } from '../format/terminal-safe.js';
import type { Summary } from '../summary/summary.js';

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
  base_count: number;
  variant_count: number;
}

export interface Comparison {
  base: { traces: string[]; verdict: string };
  variant: { traces: string[]; verdict: string };
  /** Run-level figures, largest absolute change first (wall first). */
  figures: CompareRow[];
  /** Names by the change in self time, largest absolute change first. */
  names: NameDelta[];
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
export function compareSummaries(a: Summary, b: Summary, opts: { top?: number } = {}): Comparison {
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
  const names = new Map<string, NameDelta>();
  const key = (cat: string, name: string) => `${cat}\u0000${name}`;
  for (const n of a.by_name) names.set(key(n.cat, n.name), { cat: n.cat, name: n.name, base_self_us: n.self_us, variant_self_us: 0, delta_us: 0, base_count: n.count, variant_count: 0 });
  for (const n of b.by_name) {
    const d = names.get(key(n.cat, n.name)) ?? { cat: n.cat, name: n.name, base_self_us: 0, variant_self_us: 0, delta_us: 0, base_count: 0, variant_count: 0 };
    d.variant_self_us = n.self_us;
    d.variant_count = n.count;
    names.set(key(n.cat, n.name), d);
  }
  for (const d of names.values()) d.delta_us = d.variant_self_us - d.base_self_us;
  return {
    base: { traces: a.traces, verdict: pa.totals.verdict },
    variant: { traces: b.traces, verdict: pb.totals.verdict },
    figures: [row('wall', 'us', a.wall_us, b.wall_us), ...timeRows, ...others],
    names: [...names.values()]
      .filter((d) => d.cat !== 'dftracer' && d.delta_us !== 0)
      .sort((x, y) => Math.abs(y.delta_us) - Math.abs(x.delta_us) || x.name.localeCompare(y.name))
      .slice(0, opts.top ?? 20),
  };
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
  return terminalSafe(out.join('\n'));
}
