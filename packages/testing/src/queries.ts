import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceEvent } from './event.js';

/** A fresh directory under the OS temp dir. */
export function tempDir(prefix = 'dft-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

type Events = readonly TraceEvent[] | ReadonlyMap<number, TraceEvent>;

const indexed = (events: Events): ReadonlyMap<number, TraceEvent> =>
  events instanceof Map ? events : new Map((events as readonly TraceEvent[]).map((e) => [e.id, e]));

/** The names of an event's ancestors (following args.p_idx), nearest first. */
export function ancestry(events: Events, e: TraceEvent): string[] {
  const byId = indexed(events);
  const out: string[] = [];
  let p = byId.get(e.args?.p_idx);
  while (p !== undefined) {
    out.push(p.name);
    p = byId.get(p.args?.p_idx);
  }
  return out;
}

/** Events whose parent (args.p_idx) is one of `parents`. */
export function childrenOf(events: readonly TraceEvent[], parents: readonly TraceEvent[]): TraceEvent[] {
  const ids = new Set(parents.map((p) => p.id));
  return events.filter((e) => e.args?.p_idx !== undefined && ids.has(e.args.p_idx));
}

/** Events with some ancestor among `ancestors` (following args.p_idx up the tree). */
export function descendantsOf(events: readonly TraceEvent[], ancestors: readonly TraceEvent[]): TraceEvent[] {
  const parent = new Map<number, number>(events.map((e) => [e.id, e.args?.p_idx ?? -1]));
  const roots = new Set(ancestors.map((a) => a.id));
  return events.filter((e) => {
    // bounded: a p_idx cycle in a broken trace must not hang the test
    for (let p: number = e.args?.p_idx ?? -1, hops = 0; p !== -1 && hops < 64; p = parent.get(p) ?? -1, hops++) if (roots.has(p)) return true;
    return false;
  });
}

/** Events whose start lies in [t0, t1] (µs): one scenario of a file shared by several. */
export function within(events: readonly TraceEvent[], t0: number, t1: number): TraceEvent[] {
  return events.filter((e) => e.ts >= t0 && e.ts <= t1);
}

/** Events written after the one with id `id` (ids grow as events are written). */
export const after = (events: readonly TraceEvent[], id: number): TraceEvent[] => events.filter((e) => e.id > id);

/** `key(e)` → how many events have it. */
export function countBy<E>(events: readonly E[], key: (e: E) => string): Record<string, number> {
  const m: Record<string, number> = {};
  for (const e of events) m[key(e)] = (m[key(e)] ?? 0) + 1;
  return m;
}

/** `cat/name` → count, keys sorted, so that two runs' events compare with toEqual. */
export function multiset(events: readonly TraceEvent[]): Record<string, number> {
  const m = countBy(events, (e) => `${e.cat}/${e.name}`);
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
}

/** A slice on a track: a DFTracer complete event or a Chrome trace `X` event. */
export interface Slice {
  pid?: number;
  tid: number;
  ts: number;
  dur: number;
  name: string;
}

/** Slices on one track (pid/tid) that overlap without nesting (Perfetto cannot show them). */
export function overlaps(slices: readonly Slice[]): string[] {
  const problems: string[] = [];
  const tracks = new Map<string, Slice[]>();
  for (const e of slices) {
    const k = `${e.pid ?? ''}/${e.tid}`;
    let l = tracks.get(k);
    if (l === undefined) tracks.set(k, (l = []));
    l.push(e);
  }
  for (const [track, list] of tracks) {
    const sorted = [...list].sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const open: Slice[] = [];
    for (const e of sorted) {
      while (open.length > 0 && open[open.length - 1]!.ts + open[open.length - 1]!.dur <= e.ts) open.pop();
      const top = open[open.length - 1];
      if (top !== undefined && e.ts + e.dur > top.ts + top.dur) problems.push(`track ${track}: ${e.name}@${e.ts}+${e.dur} crosses ${top.name}@${top.ts}+${top.dur}`);
      open.push(e);
    }
  }
  return problems;
}
