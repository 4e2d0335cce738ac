/** Test support: read back a trace this process wrote. Not shipped. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface Ev {
  id: number;
  name: string;
  cat: string;
  pid: number;
  tid: number;
  ts: number;
  dur: number;
  ph: 'X' | 'M';
  args: Record<string, any>;
}

export interface Trace {
  /** Complete events (ph X) of the program, the tracer's own start/end left out. */
  events: Ev[];
  /** Metadata records (ph M). */
  meta: Ev[];
  byId: Map<number, Ev>;
}

export function tempDir(prefix = 'dft-ai-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function readTrace(file: string): Trace {
  const raw = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  const all = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 2 && l !== '[' && l !== ']')
    .map((l) => JSON.parse(l.endsWith(',') ? l.slice(0, -1) : l) as Ev);
  const events = all.filter((e) => e.ph === 'X' && e.cat !== 'dftracer');
  return { events, meta: all.filter((e) => e.ph === 'M'), byId: new Map(events.map((e) => [e.id, e])) };
}

/** Events whose start lies in [t0, t1] (µs): one scenario of a file shared by several. */
export function within(t: Trace, t0: number, t1: number): Ev[] {
  return t.events.filter((e) => e.ts >= t0 && e.ts <= t1);
}

/** `cat/name` → count. */
export function multiset(evs: readonly Ev[]): Record<string, number> {
  const m: Record<string, number> = {};
  for (const e of evs) m[`${e.cat}/${e.name}`] = (m[`${e.cat}/${e.name}`] ?? 0) + 1;
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
}

export function countBy(evs: readonly Ev[], key: (e: Ev) => string): Record<string, number> {
  const m: Record<string, number> = {};
  for (const e of evs) m[key(e)] = (m[key(e)] ?? 0) + 1;
  return m;
}

/** The chain of ancestors' names, nearest first. */
export function ancestors(t: Trace, e: Ev): string[] {
  const out: string[] = [];
  let p = t.byId.get(e.args.p_idx);
  while (p !== undefined) {
    out.push(p.name);
    p = t.byId.get(p.args.p_idx);
  }
  return out;
}
