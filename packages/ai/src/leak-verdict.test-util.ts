import { formatSummary, summarize } from '@dftracer/analyzer';
import { expect } from 'vitest';

/** The program's own live-tensor counts after each step → its growth per step after the first `warmup` steps (median, so one odd step does not move it). */
export function ownRate(counts: readonly number[], warmup = 3): number {
  const diffs = counts.slice(warmup + 1).map((c, i) => c - counts[warmup + i]!).sort((a, b) => a - b);
  return diffs[diffs.length >> 1]!;
}

/**
 * Runs the analyzer's summary on the trace the program wrote and checks its tensor-leak verdict
 * against the program's own counts: `yes, +N tensor(s) / step` at the program's rate, or `none`.
 */
export async function expectLeakVerdict(file: string, counts: readonly number[]): Promise<string> {
  const s = await summarize([file]);
  const tfjs = s.counters.find((p) => p.tfjs !== undefined)?.tfjs;
  expect(tfjs, 'no tfjs memory counter in the trace').toBeDefined();
  const line = formatSummary(s).split('\n').find((l) => l.includes('tensor leak:'));
  expect(line, 'no tensor leak line in the summary').toBeDefined();
  const rate = ownRate(counts);
  // samples come every interval and may miss the very last step's count, never the live floor
  expect(tfjs!.peak_tensors).toBeGreaterThanOrEqual(Math.min(...counts));
  if (rate === 0) {
    expect(tfjs!.verdict).toBe('none');
    expect(line).toMatch(/tensor leak: none$/);
  } else {
    expect(tfjs!.leak, line).toBe('leak');
    expect(tfjs!.tensors_growth?.per).toBe('step');
    expect(tfjs!.tensors_growth!.rate).toBeCloseTo(rate, 1);
    expect(line).toContain(`tensor leak: yes, +${rate} tensor${rate === 1 ? '' : 's'} / step`);
  }
  return line!;
}
