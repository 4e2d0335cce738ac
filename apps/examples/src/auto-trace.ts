/**
 * tfjsAutoTrace() on an unmodified program: the training code below knows nothing about tracing;
 * two lines before it (loadTf and initializeLog with the plugin) turn model.fitDataset into
 * pipeline.train / pipeline.epoch / compute.step events, its dataset pulls into dataloader.fetch,
 * evaluate into pipeline.evaluate and model.save into checkpoint.capture, with the fs reads of the
 * image files under them.
 *
 *   DFTRACER_ENABLE=1 node dist/auto-trace.js
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTf, tfjsAutoTrace } from '@dftracer/ai';
import { initializeLog } from '@dftracer/core';
import { readyForTraining } from './lib/backend.js';
import { diskModel } from './lib/disk-model.js';
import { CLASSES, decodePgm, listImageFolder, SIZE, writeImageFolder } from './lib/images.js';
import { buildCnn } from './lib/model.js';

const root = mkdtempSync(join(tmpdir(), 'autotrace-'));
writeImageFolder(join(root, 'images'), 256);

// Tracing: the best tfjs, then the tracer with the auto-trace plugin. Nothing else changes.
const loaded = await loadTf();
readyForTraining(loaded);
const dfLogger = initializeLog({ logFile: 'autotrace', dataDir: root, plugins: [tfjsAutoTrace()] });

// ---- the unmodified program ----
const { tf } = loaded;
const samples = listImageFolder(join(root, 'images'));
const dataset = tf.data
  .generator(function* () {
    for (const { file, label } of samples) {
      const { pixels } = decodePgm(readFileSync(file));
      yield { xs: tf.tensor3d(Float32Array.from(pixels, (p) => p / 255), [SIZE, SIZE, 1]), ys: tf.oneHot(label, CLASSES) };
    }
  })
  .shuffle(64, 'seed')
  .batch(32);

const model = buildCnn();
model.compile({ optimizer: tf.train.adam(0.005), loss: (y: import('@tensorflow/tfjs').Tensor, p: import('@tensorflow/tfjs').Tensor) => tf.losses.softmaxCrossEntropy(y, p), metrics: ['accuracy'] });
const history = await model.fitDataset(dataset as never, { epochs: 2 });
console.log(`loss by epoch: ${history.history.loss!.map((l) => Number(l).toFixed(3)).join(', ')}`);
const [loss] = (await model.evaluateDataset(dataset as never, {})) as import('@tensorflow/tfjs').Scalar[];
console.log(`evaluated loss ${loss!.dataSync()[0]!.toFixed(3)}`);
await model.save(diskModel(join(root, 'checkpoint')));
// ---- end of the program ----

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
