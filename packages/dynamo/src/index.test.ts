import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageReadmeProblems } from '@dftracer/testing';
import * as dynamo from './index.js';

// The package's public face: torch.compile's shape (compile, backends, the graph they get) and
// kernelCost. A name added here is a promise to users; keep it deliberate.
const API = ['compile', 'dynamo', 'Dynamo', 'createBackend', 'defaultBackend', 'DynamoBackend', 'Graph', 'kernelCost'];

describe('@dftracer/dynamo', () => {
  it('exports its API, nothing else', () => {
    expect(Object.keys(dynamo).sort()).toEqual([...API].sort());
  });

  it('has READMEs in the one outline, whose links and paths stay in the repository', () => {
    expect(packageReadmeProblems(fileURLToPath(new URL('..', import.meta.url)), '@dftracer/dynamo')).toEqual([]);
  });
});
