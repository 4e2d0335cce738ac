import { describe, expect, it } from 'vitest';
import { formatRunInfo } from './run-info.js';

describe('the run line of summary', () => {
  it('joins the processes: used as a sorted union, app values that differ side by side, aggregation when on', () => {
    const line = formatRunInfo([
      { pid: 1, used: ['posix', 'ai'], app: { model: 'cnn', rank: 0 }, cfg: { aggregation_enable: false } },
      { pid: 2, used: ['counters', 'posix'], app: { model: 'cnn', rank: 1 }, cfg: { aggregation_enable: true, trace_interval_ms: 500 } },
    ]);
    expect(line).toBe('run: used ai, counters, posix; app model=cnn, rank=0|1; aggregation on (500 ms intervals)');
  });

  it('says nothing for traces whose end event does not describe the run', () => {
    expect(formatRunInfo([{ pid: 1, used: [], app: {}, cfg: {} }])).toBeNull();
    expect(formatRunInfo([])).toBeNull();
  });
});
