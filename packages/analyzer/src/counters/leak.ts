/**
 * The tensor-leak verdict: does a tfjs memory series (tensors, bytes) grow steadily across steps?
 *
 * Each sample is placed in the step it was taken in (the last step start at or before it). Within
 * a step the counts rise and fall as the step creates and disposes tensors, so the series read is
 * its floor: the lowest value from that point to the end of training (a suffix minimum), which
 * rises only when memory is never given back. Growth is a leak when that floor keeps rising to the
 * last step, in at least 3 rises none more than a quarter of the steps apart, over at least 3 steps
 * and a fifth of the run; a warm-up (model variables, optimizer slots) rises early and then stops,
 * so it is not one, and a growth run that starts with one is measured from its last jump. The rate
 * is the Theil–Sen slope of the floor over the steady growth, per step (per second without steps).
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
  // A warm-up (optimizer state) jumps early in the run: the steady growth starts after its last jump.
  let start = begin - 1;
  const rough = theilSen(xs.slice(start), floor.slice(start));
  // (only in the run's first third: later, sparse samples make the floor rise in uneven stairs)
  const early = begin + (n - begin) / 3;
  for (let j = begin; j < early; j++) if (floor[j]! - floor[j - 1]! > 2 * rough * (xs[j]! - xs[j - 1]!) + 1) start = j;
  if (start >= n - 2) return null; // nothing steady after the jumps
  const rate = theilSen(xs.slice(start), floor.slice(start));
  if (!(rate > 0)) return null;
  const from = points[start]!;
  return { rate, per: steps.length > 0 ? 'step' : 's', began: from.mark === null ? null : { epoch: from.mark.epoch, step: from.mark.step }, total };
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

/**
 * The median of the slopes between pairs of points (Theil–Sen): a step that leaks every other
 * step reads as half, and a stray jump does not pull it. Long series are thinned to ~400 points.
 */
function theilSen(xs: readonly number[], ys: readonly number[]): number {
  const stride = Math.max(1, Math.ceil(xs.length / 400));
  const slopes: number[] = [];
  for (let i = 0; i < xs.length; i += stride) {
    for (let j = i + stride; j < xs.length; j += stride) if (xs[j] !== xs[i]) slopes.push((ys[j]! - ys[i]!) / (xs[j]! - xs[i]!));
  }
  if (slopes.length === 0) return 0;
  slopes.sort((a, b) => a - b);
  const m = slopes.length >> 1;
  return slopes.length & 1 ? slopes[m]! : (slopes[m - 1]! + slopes[m]!) / 2;
}
