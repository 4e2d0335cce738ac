import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeOutlineProblems, readmeProblems } from '@dftracer/testing';
import * as dynamo from './index.js';

// The package's public face: torch.compile's shape (compile, backends, the graph they get) and
// kernelCost. A name added here is a promise to users; keep it deliberate.
const API = ['compile', 'dynamo', 'Dynamo', 'createBackend', 'defaultBackend', 'DynamoBackend', 'Graph', 'kernelCost'];

describe('@dftracer/dynamo', () => {
  it('exports its API, nothing else', () => {
    expect(Object.keys(dynamo).sort()).toEqual([...API].sort());
  });

  it('has README and bench/README whose links and paths stay in the repository', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    expect(readmeProblems(fileURLToPath(new URL('../README.md', import.meta.url)), root)).toEqual([]);
    expect(readmeProblems(fileURLToPath(new URL('../bench/README.md', import.meta.url)), root)).toEqual([]);
  });

  it('has a README in the outline every package README follows', () => {
    expect(readmeOutlineProblems(fileURLToPath(new URL('../README.md', import.meta.url)), '@dftracer/dynamo')).toEqual([]);
  });
});
