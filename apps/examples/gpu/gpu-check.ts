/**
 * For a GPU machine through `../shared/gpu/` (bundled, no node_modules, no DuckDB): the examples'
 * gpu-training and the demo's training on the GPU, their traces left in TRACE_DIR to analyse
 * elsewhere. `PART=gpu|demo|all`.
 */
import { runDemoTraining } from '../src/lib/demo-training.js';
import { runGpuTraining } from '../src/lib/gpu-training.js';

const part = process.env.PART ?? 'all';
const dir = process.env.TRACE_DIR ?? '/tmp';
process.chdir(dir);
if (part !== 'demo') console.log(`GPU_TRAINING_TRACE ${await runGpuTraining()}`);
if (part !== 'gpu') {
  process.env.DFTRACER_LOG_FILE = `${dir}/demo`;
  console.log(`DEMO_TRACE ${(await runDemoTraining()).file}`);
}
process.stdout.write('', () => process.exit(0));
