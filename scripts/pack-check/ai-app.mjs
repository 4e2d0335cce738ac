// A dataset whose items are read from real files, traced with @ai.data.item (the function form
// of the decorator: plain .mjs has no decorator syntax), and a tfjs computation on each batch.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { ai } from '@dftracer/ai';
import * as tf from '@tensorflow/tfjs';

const dir = process.argv[2];
initializeLog({ dataDir: dir });
mkdirSync(dir, { recursive: true });
for (let i = 0; i < 8; i++) writeFileSync(join(dir, `item-${i}.f32`), Buffer.from(new Float32Array(16).fill(i).buffer));

const getItem = ai.data.item(function getItem(i) {
  const b = readFileSync(join(dir, `item-${i}.f32`));
  return new Float32Array(b.buffer, b.byteOffset, 16);
});

let sum = 0;
for (let i = 0; i < 8; i++) sum += tf.tidy(() => tf.tensor(getItem(i)).sum().dataSync()[0]);
finalize();
console.log(`sum ${sum} on tfjs ${tf.getBackend()}`);
