/**
 * Training on the GPU through WebGPU, with each kernel's GPU time in the trace: `loadTf` takes the
 * GPU when Dawn finds one, dynamo traces every kernel of the compiled model with `deviceTime:
 * 'auto'` (GPU timestamps where the adapter has them), and the profiler records a few steps with
 * their GPU time. Each kernel event keeps its dispatch as `dur` and gains `device_us`; the kernels
 * also appear on a device track (`webgpu:0`) in the order the GPU ran them, so Perfetto shows the
 * launches and the GPU work one above the other.
 *
 *   node dist/gpu-training.js                    (a machine with a GPU and its Vulkan driver)
 *   EGL_PLATFORM=surfaceless DFTRACER_WEBGPU_DAWN_OPTIONS=backend=opengles \
 *     DFTRACER_WEBGPU_FEATURE_LEVEL=compatibility node dist/gpu-training.js   (Mesa, no GPU: no timestamps)
 */
import { analyze } from './lib/analyze.js';
import { runGpuTraining } from './lib/gpu-training.js';

await analyze(await runGpuTraining());
