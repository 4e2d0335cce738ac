/** A tfjs IOHandler that keeps a model as two real files (pure tfjs has no file:// handler in Node). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';

export function diskModel(dir: string): tf.io.IOHandler {
  return {
    async save(artifacts) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'model.json'), JSON.stringify({ ...artifacts, weightData: undefined }));
      writeFileSync(join(dir, 'weights.bin'), Buffer.from(artifacts.weightData as ArrayBuffer));
      return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(artifacts) };
    },
    async load() {
      const json = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as tf.io.ModelArtifacts;
      const w = readFileSync(join(dir, 'weights.bin'));
      return { ...json, weightData: w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength) as ArrayBuffer };
    },
  };
}
