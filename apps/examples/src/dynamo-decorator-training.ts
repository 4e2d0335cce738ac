/**
 * The Dynamo decorator in a training loop (pydftracer's Dynamo guide, "Using the Dynamo Decorator"):
 * `@dynamo.compile` on ConvNet.forward; each training step's forward kernels, and with autograd
 * (the default) its backward kernels, are events of the compiled call.
 *
 *   DFTRACER_ENABLE=1 node dist/dynamo-decorator-training.js
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { initializeLog } from '@dftracer/core';
import { dynamo } from '@dftracer/dynamo';
import { loadBackend } from './lib/backend.js';
import { writeImageFolder } from './lib/images.js';
import { DataLoader, ImageDataset } from './lib/loader.js';

const data = mkdtempSync(join(tmpdir(), 'convnet-data-'));
writeImageFolder(data, 48);

// Initialize logger
const dfLogger = initializeLog('training', data, -1);
await loadBackend();

// Model definition with decorator
class ConvNet {
  conv1 = tf.layers.conv2d({ filters: 32, kernelSize: 3, inputShape: [28, 28, 1], name: 'conv1' });
  conv2 = tf.layers.conv2d({ filters: 64, kernelSize: 3, name: 'conv2' });
  fc1 = tf.layers.dense({ units: 128, name: 'fc1' });
  fc2 = tf.layers.dense({ units: 10, name: 'fc2' });

  @dynamo.compile
  forward(x: tf.Tensor4D): tf.Tensor2D {
    let y = tf.relu(this.conv1.apply(x) as tf.Tensor4D);
    y = tf.relu(this.conv2.apply(y) as tf.Tensor4D);
    y = tf.maxPool(y, 2, 2, 'valid');
    const flat = y.reshape([y.shape[0], -1]) as tf.Tensor2D;
    return this.fc2.apply(tf.relu(this.fc1.apply(flat) as tf.Tensor2D)) as tf.Tensor2D;
  }
}

// Training setup
const model = new ConvNet();
tf.tidy(() => model.forward(tf.zeros([1, 28, 28, 1]))); // layers create their weights on their first call
const optimizer = tf.train.adam();
const criterion = (labels: tf.Tensor, logits: tf.Tensor) => tf.losses.softmaxCrossEntropy(labels, logits) as tf.Scalar;
const trainLoader = new DataLoader(new ImageDataset(data), 16);

// Training loop
for (let epoch = 0; epoch < 2; epoch++) {
  for await (const { xs, ys } of trainLoader.batches(epoch)) {
    // Forward pass (traced by Dynamo), loss, backward and the optimizer step
    const loss = optimizer.minimize(() => criterion(ys, model.forward(xs)), true)!;
    console.log(`epoch ${epoch}: loss ${loss.dataSync()[0]!.toFixed(4)}`);
    tf.dispose([loss, xs, ys]);
  }
}

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
