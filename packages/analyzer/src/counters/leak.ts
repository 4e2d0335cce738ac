/**
 * The tensor-leak reading of one tfjs memory series (live tensors, or their bytes).
 *
 * A sample is taken wherever the program happens to be: between two steps the count is the floor
 * (what is kept), inside a step its temporaries and a loader's batches in flight sit on top. So the
 * run is cut into parts (its epochs; with fewer than two, thirds of its steps or of its time), each
 * part into 4 segments at the same points, and a segment read by its confirmed floor: the lowest
 * sample from it to the end of the run (memory that is given back later was no leak, and a segment
 * whose samples all fell inside steps reads as the floor after it).
 *
 * A leak is growth that holds from part to part up to the end: in each part every segment is above
 * the same segment of the part before, and the floor rises within the part. A warm-up or a one-off
 * allocation steps the floor up once and then stays flat; a prefetching loader's batches come and
 * go (its queue drains, or stops growing at its bound). A floor counts only with 12 samples from its
 * segment on behind it, so the end of the run, which nothing confirms, never makes a leak; too few
 * samples to compare the last two parts is said as such. A rise at the end of the last part, held
 * by enough samples and not seen at the same point of the part before, is reported as a rise, not
 * a leak: the data cannot tell a loader reading further ahead from a leak that began there.
 */

export interface StepMark {
  /** Start of the step (µs): its events' earliest ts. */
  readonly ts: number;
  readonly epoch: number | null;
  readonly step: number;
}

export interface StepAt {
  readonly epoch: number | null;
  readonly step: number;
}

/** How the run was cut into parts: its epochs, or thirds of its steps or of its time (no epochs). */
export type PartKind = 'epochs' | 'step thirds' | 'time thirds';

/** Growth that held from part to part to the end of the run. */
export interface Growth {
  /** Units per step (per second without steps): the median growth at the same point, part to part. */
  readonly rate: number;
  readonly per: 'step' | 's';
  /** Growth of the floor from the first part it was seen in to the end. */
  readonly total: number;
  /** Parts it was seen in, each above the one before (2: the last two epochs), of the parts compared. */
  readonly over: number;
  readonly of: number;
  readonly parts: PartKind;
  /** The epoch it was first seen in (null without epochs). */
  readonly from_epoch: number | null;
  /** Steps the parts it was seen in hold (0 without steps). */
  readonly steps: number;
}

/** A rise of the floor in the last part, not seen at the same point of the part before. */
export interface Rise {
  /** Above the floor of the part's start and of the same point of the part before. */
  readonly total: number;
  readonly parts: PartKind;
  /** The epoch it rose in (null without epochs). */
  readonly epoch: number | null;
  /** The step from which the part stayed above its earlier floor (null without steps). */
  readonly since: StepAt | null;
  /** Whether there was a part before to compare with, and its epoch. */
  readonly compared: boolean;
  readonly prev_epoch: number | null;
  /**
   * `last part only`: it rose within the last part only; `few samples`: the last part sits above the
   * one before, with too few samples late in it to tell whether it kept rising.
   */
  readonly why: 'last part only' | 'few samples';
}

export interface LeakReading {
  readonly kind: 'leak' | 'rising' | 'none' | 'too few samples';
  readonly growth: Growth | null;
  readonly rise: Rise | null;
  /** Samples read (inside the steps, or all without steps). */
  readonly samples: number;
}

/** A reading needs at least this many samples over at least two parts. */
export const MIN_SAMPLES = 8;
/** A floor counts once this many samples, from its segment to the end of the run, stand behind it (one of them falls between steps); a rise at the end needs as many. */
export const CONFIRM_SAMPLES = 12;
const SEGMENTS = 4;

interface Point {
  /** Step ordinal (or seconds from the first sample, without steps). */
  x: number;
  v: number;
}

interface Part {
  /** The part's x range [from, to). */
  from: number;
  to: number;
  epoch: number | null;
  points: Point[];
  /** Confirmed floor per segment (undefined: not confirmed), and the lowest sample in it. */
  floor: Array<number | undefined>;
  raw: Array<number | undefined>;
}

/** Samples (ts ascending) and the run's steps → the reading. `minTotal`: growth below it is no leak. */
export function readLeak(samples: ReadonlyArray<{ ts: number; v: number }>, steps: readonly StepMark[], minTotal: number): LeakReading {
  const sorted = [...steps].sort((a, b) => a.ts - b.ts);
  const points = place(samples, sorted);
  const reading = (kind: LeakReading['kind'], growth: Growth | null = null, rise: Rise | null = null): LeakReading => ({ kind, growth, rise, samples: points.length });
  const cut = partsOf(points, sorted);
  if (cut === null || points.length < MIN_SAMPLES) return reading('too few samples');
  const { parts, kind } = cut;
  confirmFloors(parts);
  // Fewer than three confirmed points in either of the last two parts: they cannot be compared.
  if (parts.slice(-2).some((p) => defined(p.floor).length < 3)) return reading('too few samples');

  // The run of parts, ending with the last, each above the one before and rising within.
  let over = 1;
  while (over < parts.length && above(parts[parts.length - over - 1]!, parts[parts.length - over]!, minTotal) && within(parts[parts.length - over]!, 1) === 'rises') over++;
  const first = parts[parts.length - over]!;
  const last = parts[parts.length - 1]!;
  const rate = samePointRate(parts.slice(parts.length - over));
  const total = lastDefined(last.floor) - defined(first.floor)[0]!;
  if (over >= (kind === 'epochs' ? 2 : 3) && total >= minTotal && rate > 0) {
    return reading('leak', { rate, per: kind === 'time thirds' ? 's' : 'step', total, over, of: parts.length, parts: kind, from_epoch: first.epoch, steps: kind === 'time thirds' ? 0 : last.to - first.from });
  }
  // The last part above the one before (beyond what that one held in flight), but too few samples
  // late in it to see it rise or stay flat.
  const prev = parts[parts.length - 2]!;
  if (above(prev, last, minTotal) && within(last, 1) === 'unknown') {
    const higher = median(sameSegments(prev, last).map(([a, b]) => b - a));
    if (higher >= minTotal && higher > inFlight(prev)) return reading('rising', null, { total: higher, parts: kind, epoch: last.epoch, since: null, compared: true, prev_epoch: prev.epoch, why: 'few samples' });
  }
  const rise = risingAtEnd(parts, minTotal, sorted, kind);
  return rise === null ? reading('none') : reading('rising', null, rise);
}

/** Pairs of confirmed floors of `a` and `b` at the same segments. */
function sameSegments(a: Part, b: Part): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let s = 0; s < SEGMENTS; s++) if (a.floor[s] !== undefined && b.floor[s] !== undefined) out.push([a.floor[s]!, b.floor[s]!]);
  return out;
}

/** Whether `b` is above the part before it by `by` at every point both have a confirmed floor for (three at least). */
function above(a: Part, b: Part, by: number): boolean {
  const pairs = sameSegments(a, b);
  return pairs.length >= 3 && pairs.every(([x, y]) => y - x >= by);
}

/**
 * Whether the confirmed floor rises within a part (by `by` at least) or stays flat. Flat is known only
 * where the part's first samples touched its floor: else they all fell inside steps, and the floor
 * there is only bounded by what came later.
 */
function within(p: Part, by: number): 'rises' | 'flat' | 'unknown' {
  const d = defined(p.floor);
  if (d[d.length - 1]! - d[0]! >= by) return 'rises';
  const s = p.floor.findIndex((v) => v !== undefined);
  return p.raw[s]! - p.floor[s]! < by ? 'flat' : 'unknown';
}

/**
 * What a part held in flight above its floor: the most any segment's lowest sample stood above its
 * confirmed floor (a loader's queue, a step's temporaries where no sample fell between steps).
 */
function inFlight(p: Part): number {
  return Math.max(0, ...p.raw.map((r, s) => (r === undefined || p.floor[s] === undefined ? 0 : r - p.floor[s]!)));
}

/** Units per step (per second): the median growth at the same point from part to part, over its distance. */
function samePointRate(parts: readonly Part[]): number {
  const rates: number[] = [];
  for (let i = 1; i < parts.length; i++) for (const [a, b] of sameSegments(parts[i - 1]!, parts[i]!)) rates.push((b - a) / (parts[i]!.from - parts[i - 1]!.from));
  return median(rates);
}

/**
 * A rise at the end of the last part: the longest run of its last samples all at least `minTotal`
 * above its first segment's floor and above the same points of the part before, by more than the
 * part before held in flight, or null.
 */
function risingAtEnd(parts: readonly Part[], minTotal: number, steps: readonly StepMark[], kind: PartKind): Rise | null {
  const last = parts[parts.length - 1]!;
  const prev = parts.length > 1 ? parts[parts.length - 2]! : null;
  const start = Math.min(...last.points.filter((p) => segmentOf(last, p.x) === 0).map((p) => p.v));
  if (!Number.isFinite(start)) return null;
  const pts = last.points;
  let i = pts.length;
  let level = Infinity;
  while (i > 0 && pts[i - 1]!.v >= start + minTotal) level = Math.min(level, pts[--i]!.v);
  if (pts.length - i < CONFIRM_SAMPLES) return null;
  const at = (pts[i]!.x - last.from) / (last.to - last.from);
  const sameBefore = prev === null ? [] : prev.points.filter((p) => (p.x - prev.from) / (prev.to - prev.from) >= at).map((p) => p.v);
  const before = sameBefore.length === 0 ? -Infinity : Math.min(...sameBefore);
  // Not a rise unless beyond what the part before held in flight, and not there at the same point before it.
  if (!(level - before >= minTotal && level - Math.max(start, before) > (prev === null ? 0 : inFlight(prev)))) return null;
  const mark = kind === 'time thirds' ? null : steps[pts[i]!.x]!;
  return { total: level - start, parts: kind, epoch: last.epoch, since: mark === null ? null : { epoch: mark.epoch, step: mark.step }, compared: sameBefore.length > 0, prev_epoch: prev?.epoch ?? null, why: 'last part only' };
}

/**
 * Each sample inside the steps at x = its step's ordinal (all of them at x = seconds, without steps).
 * A sample belongs to a step only for about a step's length after its start: the time between epochs
 * (an evaluation) is dropped alike after every epoch, as it must be after the last, where the end of
 * the program (disposing everything) would hide what the run kept.
 */
function place(samples: ReadonlyArray<{ ts: number; v: number }>, steps: readonly StepMark[]): Point[] {
  if (steps.length === 0) return samples.map((s) => ({ x: (s.ts - samples[0]!.ts) / 1e6, v: s.v }));
  const gaps = steps.slice(1).map((s, i) => s.ts - steps[i]!.ts).sort((a, b) => a - b);
  const typical = gaps.length > 0 ? gaps[gaps.length >> 1]! : Infinity;
  const out: Point[] = [];
  let k = -1;
  for (const s of samples) {
    while (k + 1 < steps.length && steps[k + 1]!.ts <= s.ts) k++;
    if (k >= 0 && s.ts <= steps[k]!.ts + 1.5 * typical) out.push({ x: k, v: s.v });
  }
  return out;
}

/** The parts: epochs (two or more with samples), else thirds of the steps, else of the time. */
function partsOf(points: readonly Point[], steps: readonly StepMark[]): { parts: Part[]; kind: PartKind } | null {
  const part = (from: number, to: number, epoch: number | null): Part => ({ from, to, epoch, points: [], floor: [], raw: [] });
  let parts: Part[] = [];
  let kind: PartKind;
  if (steps.length === 0) {
    if (points.length === 0) return null;
    const end = points[points.length - 1]!.x * (1 + 1e-9) + 1e-9;
    parts = [0, 1, 2].map((i) => part((i * end) / 3, ((i + 1) * end) / 3, null));
    kind = 'time thirds';
  } else {
    for (let k = 0; k < steps.length; k++) {
      const e = steps[k]!.epoch;
      const cur = parts[parts.length - 1];
      if (cur !== undefined && cur.epoch === e) cur.to = k + 1;
      else parts.push(part(k, k + 1, e));
    }
    kind = 'epochs';
    if (parts.filter((p) => p.epoch !== null).length < 2) {
      if (steps.length < 3) return null;
      parts = [0, 1, 2].map((i) => part(Math.floor((i * steps.length) / 3), Math.floor(((i + 1) * steps.length) / 3), null));
      kind = 'step thirds';
    }
  }
  let j = 0;
  for (const p of points) {
    while (j < parts.length - 1 && p.x >= parts[j]!.to) j++;
    parts[j]!.points.push(p);
  }
  // A part without samples (an epoch too short to be sampled) cannot be compared: left out.
  parts = parts.filter((p) => p.points.length > 0);
  return parts.length < 2 ? null : { parts, kind };
}

const segmentOf = (p: Part, x: number): number => Math.min(SEGMENTS - 1, Math.floor(((x - p.from) / (p.to - p.from)) * SEGMENTS));

/**
 * Each segment's lowest sample from it to the end of the run (segments in time order); undefined
 * where fewer than CONFIRM_SAMPLES samples, from it on, stand behind it (the end of the run).
 */
function confirmFloors(parts: readonly Part[]): void {
  const counts: number[][] = [];
  for (const p of parts) {
    p.raw = new Array<number | undefined>(SEGMENTS).fill(undefined);
    const n = new Array<number>(SEGMENTS).fill(0);
    for (const pt of p.points) {
      const s = segmentOf(p, pt.x);
      p.raw[s] = Math.min(p.raw[s] ?? Infinity, pt.v);
      n[s]!++;
    }
    p.floor = [...p.raw];
    counts.push(n);
  }
  let after = Infinity;
  let behind = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const f = parts[i]!.floor;
    for (let s = SEGMENTS - 1; s >= 0; s--) {
      if (f[s] === undefined) continue;
      after = Math.min(after, f[s]!);
      behind += counts[i]![s]!;
      f[s] = behind >= CONFIRM_SAMPLES ? after : undefined;
    }
  }
}

const defined = (xs: ReadonlyArray<number | undefined>): number[] => xs.filter((v): v is number => v !== undefined);
const lastDefined = (xs: ReadonlyArray<number | undefined>): number => defined(xs)[defined(xs).length - 1]!;

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length & 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
