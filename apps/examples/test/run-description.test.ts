import { describe, expect, it } from 'vitest';
import { formatSummary, summarize } from '@dftracer/analyzer';
import { expectValid, runExample } from './harness.js';

describe('the run describes itself at end', () => {
  it('training-run: cfg, used and app of the end event are exactly what the program set; summary says them in a line', async () => {
    const run = await runExample('training-run', { env: { DFTRACER_COMPRESSION_LEVEL: '3', DFTRACER_TRACE_INTERVAL_MS: '250' } });
    expect(run.files).toHaveLength(1);
    await expectValid(run.files);
    const ends = run.events.filter((e) => e.name === 'end' && e.cat === 'dftracer');
    expect(ends).toHaveLength(1);
    const args = ends[0]!.args as Record<string, unknown>;
    // what the program called setAppMetadata with, values and types
    expect(args.app).toEqual({ model: 'cnn', epochs: 2, learning_rate: 0.005, augment: false });
    // ai (taxonomy), dynamo (backend), the fs tracer (the loader's reads), counters (sampled every 100 ms): each wrote events
    expect(args.used).toEqual(['ai', 'counters', 'dynamo', 'posix']);
    for (const [cat, integration] of [['compute', 'ai'], ['dynamo', 'dynamo'], ['POSIX', 'posix']] as const) {
      expect(run.events.some((e) => e.cat === cat), integration).toBe(true);
    }
    const dataDir = /data: (.*)/.exec(run.stdout)![1]!;
    expect(args.cfg).toEqual({
      time_metric: 'US',
      enable: true,
      log_file: 'training_run',
      data_dirs: dataDir,
      trace_all_files: false,
      metadata: true,
      io: true,
      posix: true,
      compression: true,
      compression_level: 3,
      gzip_encoder: 'zlib',
      write_buffer_size: 1048576,
      bind_signals: false,
      log_level: 'WARN',
      tids: true,
      writer_thread: true,
      counters_interval_ms: 100,
      aggregation_enable: false,
      aggregation_type: 'FULL',
      trace_interval_ms: 250,
    });
    const text = formatSummary(await summarize(run.files, { threads: 1 }));
    expect(text.split('\n')).toContain('run: used ai, counters, dynamo, posix; app model=cnn, epochs=2, learning_rate=0.005, augment=false');
  });
});
