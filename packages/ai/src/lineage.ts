import { EntityRelation, dataLineage, recordEntity, relateEntities, type ArgValue } from '@dftracer/core';
import type { AITracer } from './ai-tracer.js';

/** An event's `args.relations` (upstream's event→entity relations): entity ids. */
export interface Relations {
  used: string[];
  generated: string[];
}

/**
 * The provenance of a checkpoint write that began at lineage mark `mark`: the directories written
 * since are `checkpoint` entities it generated; the directories the run read before (other than
 * those) are `dataset` entities it used; each checkpoint is `derived_from` each dataset (`ER`).
 */
export function checkpointRelations(mark: number): Relations {
  const l = dataLineage();
  if (l === null) return { used: [], generated: [] };
  const out = l.writtenSince(mark);
  const inputs = l.readDirectories().filter((d) => !out.some((o) => d === o || d.startsWith(`${o}/`)));
  const generated = out.map((d) => recordEntity('checkpoint', d));
  const used = inputs.map((d) => recordEntity('dataset', d));
  for (const g of generated) for (const u of used) relateEntities(g, EntityRelation.DERIVED_FROM, u);
  return { used, generated };
}

const markNow = (): number => dataLineage()?.mark() ?? 0;

/**
 * Makes a checkpoint tracer (`ai.checkpoint.capture`) record what it wrote and what from: its
 * events (regions with `run`, decorated or wrapped functions) carry `args.relations`.
 */
export function withLineage(t: AITracer): void {
  const ins = t.instrument;
  ins.setHooks({
    begin: markNow,
    args: (_a: ArrayLike<unknown>, _r: unknown, mark: number) => ({ relations: checkpointRelations(mark) as unknown as ArgValue }),
  });
  const run = <T>(fn: () => T, args?: Record<string, ArgValue>): T => {
    if (typeof fn !== 'function') throw new TypeError(`ai.${ins.name}.run: fn must be a function; got ${fn === null ? 'null' : typeof fn}`);
    const mark = markNow();
    // Filled when the region ends (the event is written after `keep` returns).
    const relations: Relations = { used: [], generated: [] };
    return ins.run(fn, { ...args, relations: relations as unknown as ArgValue }, () => {
      Object.assign(relations, checkpointRelations(mark));
      return true;
    });
  };
  Object.defineProperty(t, 'run', { value: run, configurable: true });
}
