import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tensorboardTraceHandler } from './chrome-trace.js';
import { profile } from './profiler.js';
import { schedule } from './schedule.js';
import { overlaps, tempDir } from '@dftracer/testing';
import { smallCnn, tf } from './tfjs.test-util.js';

interface ChromeEvent { name: string; ph: string; cat?: string; pid: number; tid: number; ts?: number; dur?: number; args?: Record<string, unknown> }

describe('tensorboardTraceHandler', () => {
  it('writes one standalone Chrome trace per cycle that loads as a trace', async () => {
    const cnn = await smallCnn();
    const dir = join(tempDir(), 'tb');
    const p = profile({ tf, schedule: schedule({ wait: 1, warmup: 0, active: 1, repeat: 3 }), onTraceReady: tensorboardTraceHandler(dir, 'worker0'), recordShapes: true });
    p.start();
    for (let i = 0; i < 6; i++) {
      cnn.trainStep();
      p.step();
    }
    await p.stop();
    cnn.dispose();
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    for (const f of files) {
      expect(f).toMatch(/^worker0\.\d+\.pt\.trace\.json$/);
      const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { traceEvents: ChromeEvent[]; displayTimeUnit: string };
      expect(doc.displayTimeUnit).toBe('ms');
      const slices = doc.traceEvents.filter((e) => e.ph === 'X');
      expect(slices.filter((e) => e.name.startsWith('ProfilerStep#'))).toHaveLength(1);
      const ops = slices.filter((e) => e.cat === 'cpu_op');
      expect(ops.length).toBeGreaterThan(50);
      for (const e of slices) {
        expect(Number.isFinite(e.ts) && Number.isFinite(e.dur)).toBe(true);
        expect(typeof e.pid).toBe('number');
      }
      expect(ops.find((e) => e.name === 'Conv2D')!.args!['Input Dims']).toEqual([[4, 8, 8, 1], [3, 3, 1, 4]]);
      // Perfetto shows a track's slices only when they nest: the kernels sit inside their step.
      expect(overlaps(slices as { tid: number; ts: number; dur: number; name: string }[])).toEqual([]);
      expect(doc.traceEvents.filter((e) => e.ph === 'M').map((e) => e.name)).toEqual(['process_name', 'thread_name', 'thread_name']);
    }
  });

  it('gzips with useGzip, and names bad arguments', async () => {
    const dir = tempDir();
    await profile({ tf, onTraceReady: tensorboardTraceHandler(dir, 'w', true) }, () => {
      tf.tidy(() => tf.ones([4]).square());
    });
    const [f] = readdirSync(dir);
    expect(f).toMatch(/^w\.\d+\.pt\.trace\.json\.gz$/);
    const doc = JSON.parse(gunzipSync(readFileSync(join(dir, f!))).toString('utf8')) as { traceEvents: ChromeEvent[] };
    expect(doc.traceEvents.some((e) => e.name === 'Square')).toBe(true);
    expect(() => tensorboardTraceHandler('')).toThrow(/dirName must be a non-empty string/);
    // A folder that cannot be made: the step goes on, one warning.
    const warnings: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (warnings.push(String(s)), true)) as typeof process.stderr.write;
    try {
      const bad = profile({ tf, onTraceReady: tensorboardTraceHandler(join(dir, f!, 'sub')) }).start();
      await bad.stop();
      await bad.start().stop();
    } finally {
      process.stderr.write = write;
    }
    expect(warnings.filter((w) => w.includes('tensorboardTraceHandler'))).toHaveLength(1);
    expect(() => tensorboardTraceHandler(dir, 'a/b')).toThrow(/workerName/);
  });
});
