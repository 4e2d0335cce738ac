/**
 * Combining the profiler with I/O tracing (pydftracer's profiler guide, "Combining with I/O
 * Tracing"): `@ai.data.item` on the loader, the profiler with traceHandler on the model, and the fs
 * tracer on every file (DFTRACER_DATA_DIR=all), all in one trace.
 *
 *   DFTRACER_ENABLE=1 DFTRACER_DATA_DIR=all node dist/profiler-io.js
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { ai } from '@dftracer/ai';
import { initializeLog } from '@dftracer/core';
import { profile, ProfilerActivity, traceHandler } from '@dftracer/profiler';
import { loadBackend } from './lib/backend.js';
import { buildCnn } from './lib/model.js';

const dir = mkdtempSync(join(tmpdir(), 'profiler-io-'));
const steps = 6;
for (let i = 0; i < steps; i++) writeFileSync(join(dir, `batch-${i}.f32`), Buffer.from(new Float32Array(8 * 28 * 28).map((_, j) => ((i + j) % 255) / 255).buffer));

const dfLogger = initializeLog('combined', null, -1);
await loadBackend();
const model = buildCnn();

// Use AI decorators for I/O tracing
class Loader {
  @ai.data.item
  loadData(idx: number): tf.Tensor4D {
    const b = readFileSync(join(dir, `batch-${idx}.f32`));
    return tf.tensor4d(new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4), [8, 28, 28, 1]);
  }
}
const loader = new Loader();

// Use the profiler for compute tracing
await profile({ activities: [ProfilerActivity.CPU], onTraceReady: traceHandler }, async (p) => {
  for (let step = 0; step < steps; step++) {
    const data = loader.loadData(step);
    const output = model.predict(data) as tf.Tensor;
    output.dataSync();
    tf.dispose([data, output]);
    p.step();
  }
});

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
