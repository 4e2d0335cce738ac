// Two profiled steps of a tfjs computation, written by traceHandler as PP events.
import { finalize, initializeLog } from '@dftracer/core';
import { profile, schedule, traceHandler } from '@dftracer/profiler';
import * as tf from '@tensorflow/tfjs';

initializeLog();
const x = tf.randomNormal([64, 64]);
await profile({ schedule: schedule({ wait: 1, warmup: 0, active: 2 }), onTraceReady: traceHandler }, async (p) => {
  for (let i = 0; i < 3; i++) {
    tf.tidy(() => tf.matMul(x, x).relu().sum().dataSync());
    p.step();
  }
});
finalize();
console.log('profiled');
