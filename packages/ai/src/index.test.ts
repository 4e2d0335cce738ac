import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageReadmeProblems } from '@dftracer/testing';
import * as ai from './index.js';

// The package's public face: pydftracer's ai module (its tracers, module aliases and constants),
// ai's loadTf and the tfjs hooks of its compute tracers. Nothing of @dftracer/tfjs is re-exported
// but the types ai's loadTf returns. A name added here is a promise to users; keep it deliberate.
const TAXONOMY = ['ai', 'createAI', 'ROOT_NAME', 'ROOT_CAT', 'ITER_COUNT_NAME', 'BLOCK_NAME', 'ITER_NAME', 'INIT_NAME'];
const ALIASES = ['compute', 'data', 'dataloader', 'comm', 'device', 'checkpoint', 'pipeline', 'other'];
const TFJS = ['loadTf', 'useTf', 'computeHooks', 'transferHooks', 'tfjsAutoTrace', 'traceDataset'];

describe('@dftracer/ai', () => {
  it('exports the taxonomy, its aliases and the tfjs hooks, nothing else', () => {
    expect(Object.keys(ai).sort()).toEqual([...TAXONOMY, ...ALIASES, ...TFJS].sort());
  });

  it('re-exports none of @dftracer/tfjs’s values (its loadTf is ai’s own)', async () => {
    const tfjs = await import('@dftracer/tfjs');
    for (const name of Object.keys(tfjs)) if (name in ai) expect([name, (ai as Record<string, unknown>)[name] === (tfjs as Record<string, unknown>)[name]]).toEqual([name, false]);
  });

  it('makes each alias the tracer of the same name', () => {
    for (const a of ALIASES) expect((ai as Record<string, unknown>)[a]).toBe((ai.ai as unknown as Record<string, unknown>)[a]);
  });

  it('has READMEs in the one outline, whose links and paths stay in the repository', () => {
    expect(packageReadmeProblems(fileURLToPath(new URL('..', import.meta.url)), '@dftracer/ai')).toEqual([]);
  });
});
