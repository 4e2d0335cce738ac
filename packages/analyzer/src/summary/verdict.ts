/**
 * What bounded a window, and what made a step slow: the words beside the figures of the epoch and
 * step views. Each names the share it is about, so a label never claims more than the figures say.
 */
import type { Phase, PhaseFigures } from './phases.js';

const pct = (part: number, whole: number) => Math.round((100 * part) / Math.max(1, whole));

/** The shares of a window's wall time, each with its verdict word and what it means. */
const SHARES: Array<[keyof PhaseFigures, string, string]> = [
  ['compute_us', 'compute-bound', 'computing'],
  ['wait_us', 'data-bound', 'waiting on data'],
  ['io_only_us', 'I/O-bound', 'in I/O outside compute'],
  ['other_us', 'other-bound', 'in other traced work'],
  ['idle_us', 'idle', 'with nothing traced running'],
];

/** Shares below this (%) are not worth a word beside the largest. */
const MENTION_PCT = 10;

/**
 * One line on what bounded a window: the largest share names it, and the next largest shares of
 * at least 10 % follow (`compute-bound: 63 % computing, 36 % waiting on data`).
 */
export function verdict(f: PhaseFigures): string {
  const w = f.wall_us;
  if (!(w > 0)) return '';
  const shares = SHARES.map(([k, word, what]) => ({ word, what, p: pct(f[k], w), v: f[k] })).sort((a, b) => b.v - a.v);
  const [top, ...rest] = shares;
  if (!top || top.v <= 0) return '';
  const more = rest.filter((s) => s.p >= MENTION_PCT).slice(0, 2);
  return [`${top.word}: ${top.p} % ${top.what}`, ...more.map((s) => `${s.p} % ${s.what}`)].join(', ');
}

/** The figures a step can be slow by, with the name a reader sees. */
const REASONS: Array<[keyof PhaseFigures, string]> = [
  ['wait_us', 'data wait'],
  ['compute_us', 'compute'],
  ['other_us', 'other work'],
  ['idle_us', 'idle'],
  ['io_only_us', 'I/O outside compute'],
];

/**
 * What made a step slow: its figure furthest above the median of that figure over all steps,
 * named twice so the median says what it is a median of (`data wait 40 ms (median data wait of a step 2 ms)`).
 */
export function slowReason(s: Phase, m: PhaseFigures, fmt: (us: number) => string): string {
  let best: { label: string; excess: number; v: number; med: number } | null = null;
  for (const [k, label] of REASONS) {
    const excess = s[k] - m[k];
    if (!best || excess > best.excess) best = { label, excess, v: s[k], med: m[k] };
  }
  if (!best || best.excess <= 0) return 'no figure above its median over the steps';
  return `${best.label} ${fmt(best.v)} (median ${best.label} of a step ${fmt(best.med)})`;
}
