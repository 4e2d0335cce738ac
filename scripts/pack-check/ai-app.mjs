// A dataset whose items are read from real files, traced with @ai.data.item (the function form
// of the decorator: plain .mjs has no decorator syntax), and a tfjs forward pass on each item,
// traced with ai.compute.forward after ai's loadTf (which gives it tensor hooks: out_shape, out_bytes).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { ai, loadTf } from '@dftracer/ai';

const dir = process.argv[2];
initializeLog({ dataDir: dir });
const { tf, backend } = await loadTf();
mkdirSync(dir, { recursive: true });
for (let i = 0; i < 8; i++) writeFileSync(join(dir, `item-${i}.f32`), Buffer.from(new Float32Array(16).fill(i).buffer));

const getItem = ai.data.item(function getItem(i) {
  const b = readFileSync(join(dir, `item-${i}.f32`));
  return new Float32Array(b.buffer, b.byteOffset, 16);
});
const forward = ai.compute.forward((x) => x.reshape([4, 4]).sum(1));

let sum = 0;
for (let i = 0; i < 8; i++) sum += tf.tidy(() => forward(tf.tensor(getItem(i))).sum().dataSync()[0]);
finalize();
console.log(`sum ${sum} on tfjs ${backend}`);
