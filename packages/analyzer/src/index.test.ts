import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeOutlineProblems, readmeProblems } from '@dftracer/testing';
import * as analyzer from './index.js';
import * as validate from './validate-entry.js';

// The package's public face: each CLI command as a function, and the two error kinds it throws.
// `@dftracer/analyzer/validate` is validation alone (it loads no DuckDB). A name added here is a
// promise to users; keep it deliberate.
const API = ['validateFiles', 'summarize', 'formatSummary', 'mergeTraces', 'queryTraces', 'formatQueryResult', 'exportPerfetto', 'exportParquet', 'writeReport', 'resolveInputs', 'UsageError', 'UserError'];

describe('@dftracer/analyzer', () => {
  it('exports one function per command and its errors, nothing else', () => {
    expect(Object.keys(analyzer).sort()).toEqual([...API].sort());
  });

  it('exports validateFiles alone from /validate', () => {
    expect(Object.keys(validate)).toEqual(['validateFiles']);
  });

  it('has README and bench/README whose links and paths stay in the repository', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    expect(readmeProblems(fileURLToPath(new URL('../README.md', import.meta.url)), root)).toEqual([]);
    expect(readmeProblems(fileURLToPath(new URL('../bench/README.md', import.meta.url)), root)).toEqual([]);
  });

  it('has a README in the outline every package README follows', () => {
    expect(readmeOutlineProblems(fileURLToPath(new URL('../README.md', import.meta.url)), '@dftracer/analyzer')).toEqual([]);
  });
});
