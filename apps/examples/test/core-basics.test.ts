import { describe, expect, it } from 'vitest';
import { childrenOf } from '@dftracer/testing';
import { expectValid, named, ofCat, runExample } from './harness.js';

describe('core-basics (dftFn on functions, methods, regions, iterables)', () => {
  it('writes each kind of event the tour shows', async () => {
    const run = await runExample('core-basics');
    expect(run.files).toHaveLength(1);
    await expectValid(run.files);
    const compute = ofCat(run.events, 'compute');
    const steps = named(compute, 'Trainer.step');
    expect(steps).toHaveLength(3);
    expect(steps.every((e) => e.args?.epoch === 1)).toBe(true);
    // square() called from inside each step nests under it
    expect(childrenOf(named(compute, 'square'), steps)).toHaveLength(6);
    expect(named(compute, 'batches.iter').length + named(compute, 'batches.yield').length).toBeGreaterThanOrEqual(3);
    expect(run.metadata.some((m) => m.name === 'CM' && m.args?.name === 'model' && m.args?.value === 'toy')).toBe(true);
  });
});
