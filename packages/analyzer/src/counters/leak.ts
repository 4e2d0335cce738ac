/**
 * The tensor-leak verdict: does a tfjs memory series (tensors, bytes) grow steadily across steps?
 *
 * Each sample is placed in the step it was taken in (the last step start at or before it). Within
 * a step the counts rise and fall as the step creates and disposes tensors, so the series read is
 * its floor: the lowest value from that point to the end of training (a suffix minimum), which
 * rises only when memory is never given back. Growth is a leak when that floor keeps rising to the
 * last step, in at least 3 rises none more than a quarter of the steps apart, over at least 3 steps
 * and a fifth of the run; a warm-up (model variables, optimizer slots) rises early and then stops,
 * so it is not one. The rate is the least-squares slope of the floor over the growth, per step (or
 * per second when the trace has no steps).
 */

export interface StepMark {
  /** Start of the step (µs): its events' earliest ts. */
  readonly ts: number;
  readonly epoch: number | null;
  readonly step: number;
}

export interface Growth {
  /** Units per step (per second without steps). */
  readonly rate: number;
  readonly per: 'step' | 's';
  /** The step the growth began in (null without steps). */
  readonly began: { readonly epoch: number | null; readonly step: number } | null;
  /** Total growth over the run of it. */
  readonly total: number;
}

/** Samples (ts ascending) → the growth, or null when the floor does not rise steadily. */
export function steadyGrowth(samples: ReadonlyArray<{ ts: number; v: number }>, steps: readonly StepMark[], minTotal: number): Growth | null {
  const points = place(samples, steps);
  const n = points.length;
  if (n < 4) return null;
  const floor = new Array<number>(n);
  let m = Infinity;
  for (let j = n - 1; j >= 0; j--) floor[j] = m = Math.min(m, points[j]!.v);
  const rises: number[] = [];
  for (let j = 1; j < n; j++) if (floor[j]! > floor[j - 1]!) rises.push(j);
  if (rises.length < 3) return null;
  const xs = points.map((p) => p.x);
  const span = xs[n - 1]! - xs[0]!;
  const maxGap = Math.max(3, Math.ceil(n / 4));
  if (n - 1 - rises[rises.length - 1]! > maxGap) return null; // it stopped growing: a warm-up
  let first = rises.length - 1;
  while (first > 0 && rises[first]! - rises[first - 1]! <= maxGap) first--;
  const runRises = rises.length - first;
  const begin = rises[first]!; // the first point above the plateau
  const x0 = xs[begin - 1]!;
  const total = floor[n - 1]! - floor[begin - 1]!;
  const runSpan = xs[n - 1]! - x0;
  if (runRises < 3 || total < minTotal || runSpan < (steps.length > 0 ? 3 : 0) || runSpan < span / 5) return null;
  const rate = begin + 1 < n ? slope(xs.slice(begin), floor.slice(begin)) : total / runSpan;
  const startPoint = points[begin - 1]!;
  return { rate, per: steps.length > 0 ? 'step' : 's', began: startPoint.mark === null ? null : { epoch: startPoint.mark.epoch, step: startPoint.mark.step }, total };
}

interface Point {
  x: number;
  v: number;
  mark: StepMark | null;
}

/** One point per step with samples (its lowest value), x = the step's ordinal; without steps, each sample at x = seconds. */
function place(samples: ReadonlyArray<{ ts: number; v: number }>, steps: readonly StepMark[]): Point[] {
  if (steps.length === 0) return samples.map((s) => ({ x: (s.ts - samples[0]!.ts) / 1e6, v: s.v, mark: null }));
  const sorted = [...steps].sort((a, b) => a.ts - b.ts);
  // After the last step starts, samples belong to it only for about one step's length.
  const gaps = sorted.slice(1).map((s, i) => s.ts - sorted[i]!.ts).sort((a, b) => a - b);
  const typical = gaps.length > 0 ? gaps[gaps.length >> 1]! : Infinity;
  const lastEnd = sorted[sorted.length - 1]!.ts + 1.5 * typical;
  const out: Point[] = [];
  let k = -1;
  for (const s of samples) {
    if (s.ts < sorted[0]!.ts || s.ts > lastEnd) continue;
    while (k + 1 < sorted.length && sorted[k + 1]!.ts <= s.ts) k++;
    const last = out[out.length - 1];
    if (last !== undefined && last.x === k) last.v = Math.min(last.v, s.v);
    else out.push({ x: k, v: s.v, mark: sorted[k]! });
  }
  return out;
}

function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
