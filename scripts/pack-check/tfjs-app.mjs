// loadTf from @dftracer/tfjs: the best tfjs present (here @tensorflow/tfjs alone: its cpu backend), reported in the trace.
import { finalize, initializeLog } from '@dftracer/core';
import { currentTf, loadTf } from '@dftracer/tfjs';

initializeLog();
const loaded = await loadTf();
const sum = loaded.tf.tidy(() => loaded.tf.range(0, 8).sum().dataSync()[0]);
finalize();
console.log(`loaded ${loaded.package} on ${loaded.backend} (${loaded.device}), handed over: ${currentTf() === loaded.tf}, sum ${sum}`);
