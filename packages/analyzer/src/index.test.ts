import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageReadmeProblems } from '@dftracer/testing';
import * as analyzer from './index.js';
import * as validate from './validate/validate-entry.js';

// The package's public face: each CLI command as a function, the two error kinds it throws, and
// terminalSafe (what the summary does to names before a terminal shows them).
// `@dftracer/analyzer/validate` is validation alone (it loads no DuckDB). A name added here is a
// promise to users; keep it deliberate.
const API = ['validateFiles', 'summarize', 'formatSummary', 'terminalSafe', 'mergeTraces', 'queryTraces', 'formatQueryResult', 'exportPerfetto', 'exportParquet', 'writeReport', 'resolveInputs', 'UsageError', 'UserError'];

describe('@dftracer/analyzer', () => {
  it('exports one function per command and its errors, nothing else', () => {
    expect(Object.keys(analyzer).sort()).toEqual([...API].sort());
  });

  it('exports validateFiles alone from /validate', () => {
    expect(Object.keys(validate)).toEqual(['validateFiles']);
  });

  it('has READMEs in the one outline, whose links and paths stay in the repository', () => {
    expect(packageReadmeProblems(fileURLToPath(new URL('..', import.meta.url)), '@dftracer/analyzer')).toEqual([]);
  });
});
