import type { Trace, TraceEvent } from './event.js';
import { overlaps } from './queries.js';

/**
 * Checks the invariants every trace the core writes must hold (field order, unique ids, resolved
 * file hashes, parents that enclose their children, nesting on each track, the end event's count);
 * returns the problems found.
 */
export function traceProblems(t: Trace): string[] {
  const problems: string[] = [];
  const byId = new Map<number, TraceEvent>();
  const metaIds = new Set<number>();
  for (const e of t.complete) {
    if (byId.has(e.id)) problems.push(`duplicate id ${e.id}`);
    byId.set(e.id, e);
    const keys = Object.keys(e).join(',');
    const want = e.args === undefined ? 'id,name,cat,pid,tid,ts,dur,ph' : 'id,name,cat,pid,tid,ts,dur,ph,args';
    if (keys !== want) problems.push(`field order of ${e.name}: ${keys}`);
    if (!Number.isInteger(e.ts) || !Number.isInteger(e.dur) || e.dur < 0) problems.push(`bad ts/dur on ${e.name}`);
  }
  for (const e of t.meta) {
    if (Object.keys(e).join(',') !== 'id,name,cat,pid,tid,ph,args') problems.push(`metadata field order ${Object.keys(e).join(',')}`);
    if (byId.has(e.id) || metaIds.has(e.id)) problems.push(`duplicate id ${e.id} (metadata ${e.name})`);
    metaIds.add(e.id);
  }
  for (const c of t.counters ?? []) {
    if (Object.keys(c).join(',') !== 'id,name,cat,pid,tid,ts,ph,args') problems.push(`counter field order ${Object.keys(c).join(',')}`);
    if (byId.has(c.id) || metaIds.has(c.id)) problems.push(`duplicate id ${c.id} (counter ${c.name})`);
    metaIds.add(c.id);
    if (!Number.isInteger(c.ts)) problems.push(`bad ts on counter ${c.name} ${c.id}`);
    // an aggregated record (args.dft_cnt) keeps its fold's fhash and the string args all its calls shared
    const aggregated = typeof c.args?.dft_cnt === 'number';
    if (aggregated && c.args?.fhash !== undefined && !t.meta.some((m) => m.name === 'FH' && m.args.value === c.args!.fhash)) problems.push(`unresolved fhash on aggregated ${c.name} ${c.id}`);
    // NaN and ±Infinity are written null, with `non_finite` saying which (the core's README).
    const marks = (c.args?.non_finite ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(marks)) if (c.args[k] !== null || !['NaN', 'Infinity', '-Infinity'].includes(v as string)) problems.push(`counter ${c.name} ${c.id}: non_finite.${k} is ${JSON.stringify(v)} for a value of ${JSON.stringify(c.args[k])}`);
    if (!aggregated)
      for (const [k, v] of Object.entries(c.args ?? {})) {
        if (k === 'hhash' || k === 'non_finite' || typeof v === 'number' || (v === null && k in marks)) continue;
        problems.push(`counter ${c.name} ${c.id}: arg ${k} is not a number`);
      }
  }
  if (t.lines.length > 1 && t.lines[t.lines.length - 1] !== ']' && t.events[t.events.length - 1]?.name === 'end') problems.push('no closing "]" after end');
  const fh = new Set(t.meta.filter((m) => m.name === 'FH').map((m) => m.args.value));
  for (const e of t.complete) {
    const a = e.args;
    if (a === undefined) continue;
    if (a.fhash !== undefined && !fh.has(a.fhash)) problems.push(`unresolved fhash on ${e.name} ${e.id}`);
    const p = a.p_idx as number;
    if (p === -1) {
      if (a.level !== 1) problems.push(`top-level ${e.name} ${e.id} has level ${String(a.level)}`);
      continue;
    }
    const parent = byId.get(p);
    if (parent === undefined) {
      problems.push(`${e.name} ${e.id}: parent ${p} missing`);
      continue;
    }
    if (a.level !== (parent.args.level as number) + 1) problems.push(`${e.name} ${e.id}: level ${String(a.level)} under parent level ${String(parent.args.level)}`);
    if (e.ts < parent.ts || e.ts + e.dur > parent.ts + parent.dur) problems.push(`${e.name} ${e.id} [${e.ts},+${e.dur}] pokes out of parent ${parent.name} ${parent.id} [${parent.ts},+${parent.dur}]`);
  }
  // Slices on one track are disjoint or nested.
  problems.push(...overlaps(t.complete));
  // num_events counts every record before `end`, metadata included (upstream's count)
  const end = t.events[t.events.length - 1];
  if (end?.name === 'end' && end.args !== undefined) {
    const before = t.events.length - 1;
    if (end.args.num_events !== before) problems.push(`end.num_events ${String(end.args.num_events)} but ${before} records before it`);
  }
  return problems;
}
