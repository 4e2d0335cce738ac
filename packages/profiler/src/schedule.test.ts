import { describe, expect, it } from 'vitest';
import { ProfilerAction, schedule } from './schedule.js';

const { NONE, WARMUP, RECORD, RECORD_AND_SAVE } = ProfilerAction;
const run = (fn: (s: number) => ProfilerAction, n: number): ProfilerAction[] => Array.from({ length: n }, (_, i) => fn(i));

describe('schedule', () => {
  it('follows torch.profiler.schedule: wait, warmup, active, then repeat', () => {
    expect(run(schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 }), 6)).toEqual([NONE, WARMUP, RECORD, RECORD_AND_SAVE, NONE, NONE]);
    expect(run(schedule({ wait: 1, warmup: 1, active: 2, repeat: 2 }), 10)).toEqual([NONE, WARMUP, RECORD, RECORD_AND_SAVE, NONE, WARMUP, RECORD, RECORD_AND_SAVE, NONE, NONE]);
    expect(run(schedule({ wait: 0, warmup: 0, active: 1 }), 3)).toEqual([RECORD_AND_SAVE, RECORD_AND_SAVE, RECORD_AND_SAVE]);
  });

  it('skips skipFirst steps once, before the first cycle', () => {
    expect(run(schedule({ wait: 1, warmup: 0, active: 1, repeat: 2, skipFirst: 3 }), 8)).toEqual([NONE, NONE, NONE, NONE, RECORD_AND_SAVE, NONE, RECORD_AND_SAVE, NONE]);
  });

  it('names the bad option', () => {
    expect(() => schedule({ wait: 1, warmup: 1, active: 0 })).toThrow(/active must be an integer ≥ 1/);
    expect(() => schedule({ wait: -1, warmup: 1, active: 1 })).toThrow(/wait/);
    expect(() => schedule({ wait: 1, warmup: 1.5, active: 1 })).toThrow(/warmup/);
    expect(() => schedule({ wait: 1, warmup: 1, active: 1, skipFirst: 'x' as unknown as number })).toThrow(/skipFirst/);
    expect(() => schedule(undefined as never)).toThrow(/options must be an object/);
  });
});
