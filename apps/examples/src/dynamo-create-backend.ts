/**
 * createBackend in a training loop (pydftracer's Dynamo guide, "Complete Training Example with
 * create_backend"): a ConvNet trained on an image folder, compiled each epoch with a backend that
 * carries the epoch; autograd: true traces the backward kernels of optimizer.minimize as well.
 *
 *   DFTRACER_ENABLE=1 node dist/dynamo-create-backend.js
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { initializeLog } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import { loadBackend } from './lib/backend.js';
import { buildConvNet } from './lib/convnet.js';
import { writeImageFolder } from './lib/images.js';
import { DataLoader, ImageDataset } from './lib/loader.js';

const data = mkdtempSync(join(tmpdir(), 'convnet-data-'));
writeImageFolder(data, 64);

// Initialize logger
const dfLogger = initializeLog('training', data, -1);
await loadBackend();

// Training setup
const model = buildConvNet();
const optimizer = tf.train.adam();
const criterion = (labels: tf.Tensor, logits: tf.Tensor) => tf.losses.softmaxCrossEntropy(labels, logits) as tf.Scalar;
const trainLoader = new DataLoader(new ImageDataset(data), 16);

// Training loop with per-epoch backends
for (let epoch = 0; epoch < 2; epoch++) {
  // Create a backend for this epoch
  const backend = createBackend({ name: 'convnet', epoch, step: 0, enable: true, autograd: true });
  // Compile model with the backend
  const compiledModel = compile(model, { backend });

  let batchIdx = 0;
  for await (const { xs, ys } of trainLoader.batches(epoch)) {
    backend.update({ step: batchIdx++ });
    // Forward pass, loss and backward (traced by the DFTracer backend), then the optimizer step
    const loss = optimizer.minimize(() => criterion(ys, compiledModel.apply(xs) as tf.Tensor), true)!;
    if (batchIdx === trainLoader.steps) console.log(`epoch ${epoch}: loss ${loss.dataSync()[0]!.toFixed(4)}`);
    tf.dispose([loss, xs, ys]);
  }
}

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
