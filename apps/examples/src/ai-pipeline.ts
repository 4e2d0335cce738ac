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
import { DataLoader, ImageDataset } from './lib/loader.js';
import { buildCnn } from './lib/model.js';
import { Trainer } from './lib/trainer.js';

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

// compute.forward / backward / step and pipeline.evaluate are decorators on its methods (lib/trainer.ts)
const trainer = new Trainer(buildCnn(), tf.train.adam(0.005));
await ai.pipeline.train.run(async () => {
  for (const epoch of ai.pipeline.epoch.iter([1, 2])) {
    ai.update({ epoch }); // every event below carries the epoch
    let step = 0;
    for await (const batch of ai.dataloader.fetch.iter(train.batches(epoch))) {
      ai.compute.update({ step: ++step });
      await trainer.trainStep(batch);
    }
    console.log(`epoch ${epoch}: held-out accuracy ${((await trainer.evaluate(test)) * 100).toFixed(1)} %`);
  }
  await ai.checkpoint.capture.run(() => trainer.model.save(diskModel(join(root, 'checkpoint'))));
});

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
