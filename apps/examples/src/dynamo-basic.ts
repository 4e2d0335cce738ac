/**
 * Basic Dynamo tracing (pydftracer's Dynamo guide, "Basic Model Tracing"): `@dynamo.compile` on a
 * model's forward method traces every tfjs kernel it runs as a `dynamo` event
 * (`function.Conv2D`, `function.Relu`, …) and every layer as a module event.
 *
 *   DFTRACER_ENABLE=1 DFTRACER_DISABLE_IO=1 node dist/dynamo-basic.js
 */
import * as tf from '@tensorflow/tfjs';
import { initializeLog } from '@dftracer/core';
import { dynamo } from '@dftracer/dynamo';
import { loadBackend } from './lib/backend.js';

// Initialize logger
const dfLogger = initializeLog('dynamo_trace', '/tmp/data', -1);
await loadBackend();

// Define a model
class SimpleModel {
  conv = tf.layers.conv2d({ filters: 16, kernelSize: 3, strides: 1, inputShape: [32, 32, 3], name: 'conv' });
  fc = tf.layers.dense({ units: 10, name: 'fc' });

  @dynamo.compile
  forward(x: tf.Tensor4D): tf.Tensor {
    let y = this.conv.apply(x) as tf.Tensor4D;
    y = tf.relu(y);
    y = tf.maxPool(y, 2, 2, 'valid');
    const flat = y.reshape([y.shape[0], -1]);
    return this.fc.apply(flat) as tf.Tensor;
  }
}

// Create model and run
const model = new SimpleModel();
const sample = tf.randomNormal([1, 32, 32, 3]) as tf.Tensor4D;
const output = model.forward(sample);
console.log(`output shape ${JSON.stringify(output.shape)}`);

// Finalize
dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
