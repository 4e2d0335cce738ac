/**
 * A custom Dynamo tracer (pydftracer's Dynamo guide, "Custom Dynamo Tracer"): its own name, epoch,
 * step, image index and size, written into every event of the calls it compiles; `@tracer.compile`
 * on a method, and `update()` as training moves on.
 *
 *   DFTRACER_ENABLE=1 node dist/dynamo-custom-tracer.js
 */
import * as tf from '@tensorflow/tfjs';
import { initializeLog } from '@dftracer/core';
import { Dynamo } from '@dftracer/dynamo';
import { loadBackend } from './lib/backend.js';

const dfLogger = initializeLog('custom_tracer', null, -1);
await loadBackend();

// Create a custom Dynamo tracer
const dynamoTracer = new Dynamo({ name: 'resnet50', epoch: 1, step: 100, imageIdx: 42, imageSize: [224, 224], enable: true });

class Block {
  conv = tf.layers.conv2d({ filters: 8, kernelSize: 3, padding: 'same', inputShape: [32, 32, 3] });

  // Use with the compile decorator
  @dynamoTracer.compile
  forward(x: tf.Tensor4D): tf.Tensor {
    return tf.relu(tf.add(this.conv.apply(x) as tf.Tensor, 1));
  }
}

const block = new Block();
for (let step = 100; step < 103; step++) {
  dynamoTracer.update({ step, imageIdx: 42 + (step - 100) * 4 });
  tf.tidy(() => block.forward(tf.randomNormal([4, 32, 32, 3]) as tf.Tensor4D).dataSync());
}
console.log(`graphs captured: ${dynamoTracer.graphs.length}`);

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
