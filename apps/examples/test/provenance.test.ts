import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace } from '@dftracer/testing';
import { expectValid, runExample } from './harness.js';

/** FNV-1a-64 of type 0x1f key with upstream's basis, written out here as the ground truth (entity.h's pinned value checks the core's). */
function fnv(type: string, key: string): string {
  let h = 1469598103934665603n;
  for (const b of Buffer.from(`${type}\u001f${key}`)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

describe('provenance of a checkpoint', () => {
  it('training-run: which data did the checkpoint come from, answered from the records', async () => {
    const run = await runExample('training-run');
    await expectValid(run.files);
    const root = /data: (.*)/.exec(run.stdout)![1]!;
    const t = readTrace(run.files[0]!);
    const entities = new Map(t.meta.filter((m) => m.name === 'EH').map((m) => [m.args.id as string, m.args as Record<string, unknown>]));
    const capture = t.complete.filter((e) => e.cat === 'checkpoint' && e.name === 'capture');
    expect(capture).toHaveLength(1);
    const rel = (capture[0]!.args as { relations: { used: string[]; generated: string[] } }).relations;
    // the question, answered from the trace alone: the checkpoint it generated, and the data it used
    const generated = rel.generated.map((id) => entities.get(id)!);
    const used = rel.used.map((id) => entities.get(id)!);
    expect(generated.map((e) => [e.type, e.uri, e.store])).toEqual([['checkpoint', join(root, 'checkpoint'), 2]]);
    // the program read the image folder's class directories (train/0 … train/9), nothing else traced
    const classDirs = readdirSync(join(root, 'train')).map((d) => join(root, 'train', d));
    expect(used.map((e) => e.uri).sort()).toEqual(classDirs.sort());
    expect(used.every((e) => e.type === 'dataset')).toBe(true);
    // ids as every DFTracer producer computes them
    for (const [id, e] of entities) expect(id).toBe(fnv(e.type as string, e.uri as string));
    // and the same lineage as entity-to-entity records: checkpoint derived_from (16) each dataset
    const er = t.meta.filter((m) => m.name === 'ER').map((m) => m.args as Record<string, unknown>);
    expect(er.filter((r) => r.relation === 16 && r.subject === rel.generated[0]).map((r) => r.object).sort()).toEqual([...rel.used].sort());
  });
});
