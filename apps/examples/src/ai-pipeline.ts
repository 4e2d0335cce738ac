/**
 * The ai taxonomy over a whole training program, as pydftracer's `ai` decorators lay it out:
 * pipeline.train around everything, pipeline.epoch per epoch, dataloader.fetch per batch, data.item
 * per sample (file reads inside), compute.forward / backward / step per training step,
 * pipeline.evaluate, and checkpoint.capture when the model is saved. One trace, one tree.
 *
 *   DFTRACER_ENABLE=1 node dist/ai-pipeline.js
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ai, loadTf } from '@dftracer/ai';
import { initializeLog } from '@dftracer/core';
import { readyForTraining } from './lib/backend.js';
import { diskModel } from './lib/disk-model.js';
import { writeImageFolder } from './lib/images.js';
import { DataLoader, ImageDataset, type Batch } from './lib/loader.js';
import { accuracyOf, buildCnn, lossOf } from './lib/model.js';

const root = mkdtempSync(join(tmpdir(), 'ai-pipeline-'));
const dfLogger = initializeLog({ logFile: 'ai_pipeline', dataDir: root });
const loaded = await loadTf();
console.log(`tfjs ${readyForTraining(loaded)}`);
const { tf } = loaded;

ai.data.preprocess.derive('generate').run(() => {
  writeImageFolder(join(root, 'train'), 512, 1);
  writeImageFolder(join(root, 'test'), 128, 2);
});
const train = new DataLoader(new ImageDataset(join(root, 'train')), 32);
const test = new DataLoader(new ImageDataset(join(root, 'test')), 64, false);

class Trainer {
  readonly model = buildCnn();
  readonly optimizer = tf.train.adam(0.005);

  @ai.compute.forward
  forward(xs: import('@tensorflow/tfjs').Tensor, ys: import('@tensorflow/tfjs').Tensor) {
    return lossOf(this.model, xs, ys);
  }

  /** variableGrads runs the forward pass on the tape, then the backward pass. */
  @ai.compute.backward
  backward({ xs, ys }: Batch) {
    return tf.variableGrads(() => this.forward(xs, ys));
  }

  @ai.compute.step
  step(grads: import('@tensorflow/tfjs').NamedTensorMap) {
    this.optimizer.applyGradients(grads as Parameters<typeof this.optimizer.applyGradients>[0]);
  }

  @ai.pipeline.evaluate
  async evaluate(): Promise<number> {
    let right = 0;
    for await (const { xs, ys } of ai.dataloader.fetch.iter(test.batches())) {
      right += accuracyOf(this.model, xs, ys) * xs.shape[0];
      tf.dispose([xs, ys]);
    }
    return right / test.dataset.length;
  }
}

const trainer = new Trainer();
await ai.pipeline.train.run(async () => {
  for (const epoch of ai.pipeline.epoch.iter([1, 2])) {
    ai.update({ epoch }); // every event below carries the epoch
    let step = 0;
    for await (const batch of ai.dataloader.fetch.iter(train.batches(epoch))) {
      ai.compute.update({ step: ++step });
      const { value, grads } = trainer.backward(batch);
      trainer.step(grads);
      tf.dispose([value, grads, batch.xs, batch.ys]);
    }
    console.log(`epoch ${epoch}: held-out accuracy ${((await trainer.evaluate()) * 100).toFixed(1)} %`);
  }
  await ai.checkpoint.capture.run(() => trainer.model.save(diskModel(join(root, 'checkpoint'))));
});

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
