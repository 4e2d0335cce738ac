/**
 * The demo: trains a small CNN with TensorFlow.js on an image dataset read from real files, traced
 * into ONE DFTracer file (file I/O, data loading, training phases, every tfjs kernel through a dynamo
 * backend, profiled steps through the profiler; on a GPU, each kernel's device time), then reads the
 * trace back with the analyzer: where the time went, top files and kernels, and an HTML report.
 *
 *   npx -y pnpm@9 demo            (from the repository root; DFTRACER_LOG_FILE picks the trace's path)
 */
import { dirname, join } from 'node:path';
import { analyze } from './lib/analyze.js';
import { runDemoTraining } from './lib/demo-training.js';

const { file, started } = await runDemoTraining();
await analyze(file, { report: join(dirname(file), 'report.html') });
console.log(`\ndemo finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
