/**
 * The profiler with traceHandler (pydftracer's "PyTorch Profiler Integration", basic usage): a
 * schedule of wait 1, warmup 1, active 2 over four inference steps; the two active steps' kernels
 * land in the trace as cat PP events, on the tracer's clock.
 *
 *   DFTRACER_ENABLE=1 node dist/profiler-trace-handler.js
 */
import * as tf from '@tensorflow/tfjs';
import { initializeLog } from '@dftracer/core';
import { profile, ProfilerActivity, schedule, traceHandler } from '@dftracer/profiler';
import { loadBackend } from './lib/backend.js';
import { buildCnn } from './lib/model.js';

// Initialize DFTracer logger
const dfLogger = initializeLog('profiler_trace', null, -1);
await loadBackend();

const model = buildCnn();
const inputData = tf.randomNormal([8, 28, 28, 1]);

// Define profiler schedule
const profilerSchedule = schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 });

// Run profiler with traceHandler
const p = profile({
  activities: [ProfilerActivity.CPU],
  schedule: profilerSchedule,
  onTraceReady: traceHandler,
  profileMemory: true,
  withStack: true,
});
p.start();
for (let step = 0; step < 4; step++) {
  tf.tidy(() => (model.predict(inputData) as tf.Tensor).dataSync()); // your model code here
  p.step();
}
await p.stop();

dfLogger.finalize();
console.log(`${p.keyAverages().table({ sortBy: 'self_cpu_time_total', rowLimit: 5 })}\ntrace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
