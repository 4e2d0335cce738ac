import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageReadmeProblems } from '@dftracer/testing';
import * as profiler from './index.js';

// The package's public face: torch.profiler's names, pydftracer's traceHandler and the exports of
// a recorded cycle. A name added here is a promise to users; keep it deliberate.
const API = ['profile', 'Profiler', 'schedule', 'ProfilerAction', 'ProfilerActivity', 'DeviceType', 'recordFunction', 'KeyAverages', 'traceHandler', 'tensorboardTraceHandler', 'chromeTrace', 'collapsedStacks', 'PP_CAT'];

describe('@dftracer/profiler', () => {
  it('exports its API, nothing else', () => {
    expect(Object.keys(profiler).sort()).toEqual([...API].sort());
  });

  it('has READMEs in the one outline, whose links and paths stay in the repository', () => {
    expect(packageReadmeProblems(fileURLToPath(new URL('..', import.meta.url)), '@dftracer/profiler')).toEqual([]);
  });
});
