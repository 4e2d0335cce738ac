// tfjsAutoTrace on an unmodified program: model.fit for 2 epochs, fitDataset, predict, evaluate,
// trainOnBatch, save and loadLayersModel become ai events; teardown puts tfjs back as it was.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalize, getTracer, initializeLog } from '@dftracer/core';
import type { io as tfio } from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTf, tfjsAutoTrace, type LoadedTf } from './index.js';
import { ancestry, readTrace, tempDir, traceProblems, type Trace } from '@dftracer/testing';

let dir = '';
let file = '';
let loaded: LoadedTf;

beforeAll(async () => {
  dir = tempDir();
  file = initializeLog({ enable: true, logFile: join(dir, 'auto'), dataDir: join(dir, 'ckpt'), compression: false }).file!;
  loaded = await loadTf({ prefer: ['wasm', 'cpu'] });
});

/** An IOHandler that keeps a model as two files on disk (pure tfjs has no file:// handler in Node). */
function diskHandler(tf: LoadedTf['tf'], path: string): tfio.IOHandler {
  return {
    async save(artifacts) {
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, 'model.json'), JSON.stringify({ ...artifacts, weightData: undefined }));
      writeFileSync(join(path, 'weights.bin'), Buffer.from(artifacts.weightData as ArrayBuffer));
      return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(artifacts) };
    },
    async load() {
      const json = JSON.parse(readFileSync(join(path, 'model.json'), 'utf8'));
      const w = readFileSync(join(path, 'weights.bin'));
      return { ...json, weightData: w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength) };
    },
  };
}

describe('tfjsAutoTrace', () => {
  it('traces fit epochs and steps, fitDataset fetches, predict, evaluate, trainOnBatch, save and load; teardown restores tfjs', async () => {
    const { tf } = loaded;
    const proto = tf.LayersModel.prototype as unknown as Record<string, unknown>;
    const originals = ['fit', 'fitDataset', 'evaluate', 'predict', 'trainOnBatch', 'save'].map((k) => proto[k]);
    const originalLoad = tf.loadLayersModel;
    // Set up and torn down by hand, as addPlugin/finalize do, so the tracer outlives the teardown.
    const teardown = tfjsAutoTrace().setup(getTracer()!) as () => void;
    expect(proto.fit).not.toBe(originals[0]);

    // The unmodified program.
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 4, activation: 'relu' }), tf.layers.dense({ units: 1 })] });
    model.compile({ optimizer: 'sgd', loss: 'meanSquaredError' });
    const xs = tf.randomNormal([12, 3]);
    const ys = tf.randomNormal([12, 1]);
    const seen: number[] = [];
    const history = await model.fit(xs, ys, { epochs: 2, batchSize: 4, shuffle: false, callbacks: { onEpochEnd: async (e) => void seen.push(e) } });
    expect(history.history.loss).toHaveLength(2);
    expect(seen).toEqual([0, 1]); // the program's own callbacks still run
    const ds = tf.data.zip({ xs: tf.data.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1]]), ys: tf.data.array([[1], [2], [3], [4]]) }).batch(2);
    await model.fitDataset(ds as never, { epochs: 2 });
    const pred = model.predict(xs) as import('@tensorflow/tfjs').Tensor;
    expect(pred.shape).toEqual([12, 1]);
    model.evaluate(xs, ys);
    await model.trainOnBatch(xs, ys);
    await model.save(diskHandler(tf, join(dir, 'ckpt', 'm1')));
    const restored = await tf.loadLayersModel(diskHandler(tf, join(dir, 'ckpt', 'm1')));
    const now = model.predict(xs) as import('@tensorflow/tfjs').Tensor;
    expect((restored.predict(xs) as import('@tensorflow/tfjs').Tensor).arraySync()).toEqual(now.arraySync());

    teardown();
    expect(['fit', 'fitDataset', 'evaluate', 'predict', 'trainOnBatch', 'save'].map((k) => proto[k])).toEqual(originals);
    expect(tf.loadLayersModel).toBe(originalLoad);
    await model.fit(xs, ys, { epochs: 1, batchSize: 12 }); // still works, and writes nothing
    model.predict(xs);
    finalize();

    const t: Trace = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    const evs = t.program;
    const named = (cat: string, name: string) => evs.filter((e) => e.cat === cat && e.name === name);
    const trains = named('pipeline', 'train');
    expect(trains).toHaveLength(2); // fit and fitDataset; none from the fit after teardown
    const [fit, fitDs] = trains;
    const epochs = named('pipeline', 'epoch');
    expect(epochs).toHaveLength(4);
    expect(epochs.map((e) => [e.args.epoch, e.args.p_idx])).toEqual([
      [0, fit!.id],
      [1, fit!.id],
      [0, fitDs!.id],
      [1, fitDs!.id],
    ]);
    const steps = named('compute', 'step');
    const fitSteps = steps.filter((s) => s.ts >= fit!.ts && s.ts <= fit!.ts + fit!.dur);
    expect(fitSteps.map((s) => [s.args.epoch, s.args.step])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
    for (const s of fitSteps) {
      const epoch = epochs.find((e) => e.args.epoch === s.args.epoch && e.args.p_idx === fit!.id)!;
      expect(s.args.p_idx).toBe(epoch.id); // fit's callbacks open them: each nests under its epoch
      expect(s.ts).toBeGreaterThanOrEqual(epoch.ts);
      expect(s.ts + s.dur).toBeLessThanOrEqual(epoch.ts + epoch.dur);
    }
    // fitDataset: 2 batches per epoch, each fetched from the dataset (the end of each epoch's iterator is no fetch).
    const fetches = named('dataloader', 'fetch');
    expect(fetches).toHaveLength(4);
    for (const f of fetches) expect(ancestry(t.byId, f).slice(0, 2)).toEqual(['epoch', 'train']);
    expect(steps).toHaveLength(6 + 4 + 1); // fit, fitDataset, trainOnBatch
    const forward = named('compute', 'forward');
    expect(forward).toHaveLength(3); // predict, and after save the model's and the restored model's
    expect(forward[0]!.args.out_shape).toEqual([12, 1]);
    expect(named('pipeline', 'evaluate')).toHaveLength(1);
    const capture = named('checkpoint', 'capture');
    expect(capture).toHaveLength(1);
    const writes = evs.filter((e) => e.cat === 'POSIX' && e.name === 'write');
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const w of writes) expect(ancestry(t.byId, w)).toContain('capture');
    const restart = named('checkpoint', 'restart');
    expect(restart).toHaveLength(1);
    expect(evs.filter((e) => e.cat === 'POSIX' && e.name === 'read').some((r) => ancestry(t.byId, r).includes('restart'))).toBe(true);
  });
});
