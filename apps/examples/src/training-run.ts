/**
 * A small training run that says what it is: file reads through a loader, the ai taxonomy,
 * every tfjs kernel through a dynamo backend, counters, and `setAppMetadata` pairs for the `end`
 * event's `app`; the model saved in `checkpoint.capture`. With DFTRACER_ENABLE_AGGREGATION=1 the
 * high-rate events (reads, kernels) are folded per interval.
 *
 *   DFTRACER_ENABLE=1 node dist/training-run.js
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ai, loadTf } from '@dftracer/ai';
import { initializeLog, setAppMetadata } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import { diskModel } from './lib/disk-model.js';
import { writeImageFolder } from './lib/images.js';
import { DataLoader, ImageDataset } from './lib/loader.js';
import { buildCnn } from './lib/model.js';
import { Trainer } from './lib/trainer.js';

const EPOCHS = Number(process.env.TRAINING_EPOCHS ?? 2);
const root = mkdtempSync(join(tmpdir(), 'training-run-'));
const dfLogger = initializeLog({ logFile: 'training_run', dataDir: root });
const { tf } = await loadTf();

setAppMetadata('model', 'cnn');
setAppMetadata('epochs', EPOCHS);
setAppMetadata('learning_rate', 0.005);
setAppMetadata('augment', false);

ai.data.preprocess.derive('generate').run(() => writeImageFolder(join(root, 'train'), 256, 1));
const train = new DataLoader(new ImageDataset(join(root, 'train')), 32);
const model = buildCnn();
const trainer = new Trainer(model, tf.train.adam(0.005));
await ai.pipeline.train.run(async () => {
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    const backend = createBackend({ name: 'cnn', epoch, autograd: true });
    trainer.model = compile(model, { backend });
    ai.update({ epoch });
    let step = 0;
    let loss = 0;
    for await (const batch of ai.dataloader.fetch.iter(train.batches(epoch))) {
      ai.compute.update({ step: ++step });
      backend.update({ step });
      loss = await trainer.trainStep(batch);
    }
    console.log(`epoch ${epoch}: loss ${loss.toFixed(4)}`);
  }
  await ai.checkpoint.capture.run(() => model.save(diskModel(join(root, 'checkpoint'))));
});

dfLogger.finalize();
console.log(`data: ${root}`);
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
