// A real small CNN trained on images this test writes to disk and reads back through an
// `@ai.data.item` loader, with the core's fs tracer on: data, fetch, compute and POSIX events in
// one trace, nested as the program runs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ai, loadTf, type LoadedTf } from './index.js';
import type { Scalar, Tensor } from '@tensorflow/tfjs';
import { ancestry, readTrace, tempDir, type Trace, type TraceEvent } from '@dftracer/testing';

const SIDE = 12;
const IMAGES = 8;
const BATCH = 4;
const EPOCHS = 2;

let file = '';
let dir = '';
let loaded: LoadedTf;
let trace: Trace;

beforeAll(async () => {
  dir = tempDir();
  file = initializeLog({ enable: true, logFile: join(dir, 'cnn'), dataDir: join(dir, 'images'), compression: false }).file!;
  // The wasm backend has no conv backprop kernels (Conv2DBackpropFilter): training takes the cpu one.
  loaded = await loadTf({ prefer: ['tfjs-node-gpu', 'tfjs-node', 'cpu'] });
});

afterAll(() => {
  finalize();
});

/** A binary PGM (P5) image: vertical stripes for class 0, horizontal for class 1. */
function pgm(label: number, seed: number): Buffer {
  const px = Buffer.alloc(SIDE * SIDE);
  for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) px[y * SIDE + x] = ((label === 0 ? x : y) + seed) % 3 === 0 ? 255 : 20;
  return Buffer.concat([Buffer.from(`P5\n${SIDE} ${SIDE}\n255\n`), px]);
}

function parsePgm(buf: Buffer): Float32Array {
  // Header: three whitespace-separated fields after the magic, then one whitespace byte.
  let fields = 0;
  let i = 2;
  while (fields < 3) {
    while (buf[i] === 0x0a || buf[i] === 0x20) i++;
    while (buf[i] !== 0x0a && buf[i] !== 0x20) i++;
    fields++;
  }
  return Float32Array.from(buf.subarray(i + 1), (v) => v / 255);
}

describe('a small CNN trained on images read from disk through @ai.data.item', () => {
  it('trains, and writes data/fetch/compute/POSIX events nested as they ran, with epoch and step', async () => {
    const { tf } = loaded;
    const imgDir = join(dir, 'images');
    mkdirSync(imgDir, { recursive: true });
    const labels = Array.from({ length: IMAGES }, (_, i) => i % 2);
    labels.forEach((l, i) => writeFileSync(join(imgDir, `img-${i}.pgm`), pgm(l, i)));

    class ImageLoader {
      constructor(readonly root: string) {}
      @ai.data.item
      load(index: number): Float32Array {
        return parsePgm(readFileSync(join(this.root, `img-${index}.pgm`)));
      }
    }
    const collate = ai.data.preprocess.derive('collate')((items: Float32Array[]) => {
      const flat = new Float32Array(items.length * SIDE * SIDE);
      items.forEach((a, k) => flat.set(a, k * SIDE * SIDE));
      return flat;
    });
    const loader = new ImageLoader(imgDir);
    function* batches(): Generator<{ x: Float32Array; y: number[] }> {
      for (let b = 0; b < IMAGES; b += BATCH) {
        const idx = [...Array(BATCH).keys()].map((k) => b + k);
        yield { x: collate(idx.map((i) => loader.load(i))), y: idx.map((i) => labels[i]!) };
      }
    }
    const toDevice = ai.device.transfer((x: Float32Array, y: number[]) => ({ xs: tf.tensor4d(x, [y.length, SIDE, SIDE, 1]), ys: tf.oneHot(tf.tensor1d(y, 'int32'), 2) }));

    const model = tf.sequential({
      layers: [
        tf.layers.conv2d({ inputShape: [SIDE, SIDE, 1], filters: 4, kernelSize: 3, activation: 'relu' }),
        tf.layers.maxPooling2d({ poolSize: 2 }),
        tf.layers.flatten(),
        tf.layers.dense({ units: 2, activation: 'softmax' }),
      ],
    });
    const optimizer = tf.train.adam(0.05);
    const forward = ai.compute.forward((xs: Tensor) => model.apply(xs) as Tensor);
    const backward = ai.compute.backward((f: () => Scalar) => tf.variableGrads(f));
    const step = ai.compute.step((xs: Tensor, ys: Tensor) =>
      tf.tidy(() => {
        const { value, grads } = backward(() => tf.losses.softmaxCrossEntropy(ys, forward(xs)) as Scalar);
        optimizer.applyGradients(grads as Parameters<typeof optimizer.applyGradients>[0]);
        return value.dataSync()[0]!;
      }),
    );
    const before = (model.getWeights()[0]!.dataSync() as Float32Array).slice();
    const losses: number[] = [];
    ai.pipeline.train.run(() => {
      for (const epoch of ai.pipeline.epoch.iter([...Array(EPOCHS).keys()])) {
        let s = 0;
        ai.update({ epoch, step: s });
        for (const batch of ai.dataloader.fetch.iter(batches())) {
          const { xs, ys } = toDevice(batch.x, batch.y);
          losses.push(step(xs, ys));
          tf.dispose([xs, ys]);
          ai.update({ epoch, step: ++s });
        }
      }
    });
    expect(losses).toHaveLength(EPOCHS * (IMAGES / BATCH));
    for (const l of losses) expect(Number.isFinite(l)).toBe(true);
    expect(Array.from(model.getWeights()[0]!.dataSync())).not.toEqual(Array.from(before));

    finalize();
    trace = readTrace(file);
    const evs = trace.program;
    const named = (n: string) => evs.filter((e) => e.name === n);
    const parentOf = (e: TraceEvent) => trace.byId.get(e.args.p_idx);

    // Every event sits one level below its parent, and inside its parent's interval.
    for (const e of evs) {
      const p = parentOf(e);
      if (p === undefined) continue;
      expect(e.args.level).toBe(p.args.level + 1);
      expect(e.ts).toBeGreaterThanOrEqual(p.ts);
      expect(e.ts + e.dur).toBeLessThanOrEqual(p.ts + p.dur);
    }
    // Data: each item read its image through POSIX open/read/close nested under it, under fetch.iter.
    const items = named('item');
    expect(items).toHaveLength(EPOCHS * IMAGES);
    for (const item of items) {
      expect(ancestry(trace.byId, item)).toEqual(['fetch.iter', 'epoch.block', 'train']);
      const posix = evs.filter((e) => e.cat === 'POSIX' && e.args.p_idx === item.id).map((e) => e.name);
      expect(posix).toContain('open');
      expect(posix).toContain('read');
      expect(posix).toContain('close');
    }
    // Every read of the run is an item's (the opens outside are the test writing the images).
    expect(evs.filter((e) => e.cat === 'POSIX' && e.name === 'read').map((e) => parentOf(e)?.name)).toEqual(expect.arrayContaining(['item']));
    expect(evs.filter((e) => e.cat === 'POSIX' && e.name === 'read' && parentOf(e)?.name !== 'item')).toEqual([]);
    for (const c of named('preprocess.collate')) expect(parentOf(c)?.name).toBe('fetch.iter');
    // Compute: forward under backward under step under fetch.block; shapes, bytes and memory deltas.
    const steps = named('step');
    expect(steps).toHaveLength(EPOCHS * (IMAGES / BATCH));
    expect(steps.map((e) => [e.args.epoch, e.args.step])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ]);
    for (const s of steps) expect(ancestry(trace.byId, s)).toEqual(['fetch.block', 'epoch.block', 'train']);
    for (const f of named('forward')) {
      expect(ancestry(trace.byId, f).slice(0, 2)).toEqual(['backward', 'step']);
      expect(f.args.out_shape).toEqual([BATCH, 2]);
      expect(f.args.out_bytes).toBe(BATCH * 2 * 4);
      expect(typeof f.args.tensors_delta).toBe('number');
    }
    for (const t of named('transfer')) {
      expect(parentOf(t)?.name).toBe('fetch.block');
      expect(t.args.direction).toBe('h2d');
      expect(t.args.bytes).toBe(BATCH * SIDE * SIDE * 4 + BATCH * 2 * 4);
    }
    // Fetch and epochs: counts and 1-based counters.
    expect(named('fetch.iter').map((e) => e.args.count)).toEqual([1, 2, 1, 2]);
    expect(named('epoch.block').map((e) => e.args.count)).toEqual([1, 2]);
    expect(trace.meta.some((m) => m.name === 'CM' && m.args.name === 'tfjs' && String(m.args.value).includes(`"backend":"${loaded.backend}"`))).toBe(true);
  });
});
