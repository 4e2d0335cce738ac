// tf.data's forEachAsync inside the README's epoch loop, with real tfjs and tfjsAutoTrace: each
// batch's fetch and the callback's compute nest under the epoch's block across tfjs's awaits.
import { join } from 'node:path';
import { finalize, getTracer, initializeLog } from '@dftracer/core';
import type { Tensor } from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ai, loadTf, tfjsAutoTrace, type LoadedTf } from './index.js';
import { ancestry, readTrace, tempDir, traceProblems } from '@dftracer/testing';

let file = '';
let loaded: LoadedTf;
let teardown: () => void;

beforeAll(async () => {
  file = initializeLog({ enable: true, logFile: join(tempDir(), 'tfnest'), compression: false, disableIo: true }).file!;
  loaded = await loadTf({ prefer: ['wasm', 'cpu'] });
  teardown = tfjsAutoTrace().setup(getTracer()!) as () => void;
});

afterAll(() => {
  teardown();
  finalize();
});

describe('dataset.forEachAsync in a sync epoch loop', () => {
  it("nests each batch's fetch and the callback's compute under the epoch's block", async () => {
    const { tf } = loaded;
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 2 })] });
    const ds = tf.data.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1], [2, 2, 2], [3, 3, 3]]).batch(2);
    const forward = ai.compute.forward((x: Tensor) => {
      const y = model.predict(x) as Tensor;
      const v = y.dataSync();
      y.dispose();
      return v;
    });
    const seen: number[] = [];
    for (const epoch of ai.pipeline.epoch.iter([0, 1])) {
      ai.update({ epoch });
      await ds.forEachAsync((batch) => void seen.push(forward(batch as Tensor).length));
    }
    expect(seen).toEqual([4, 4, 4, 4, 4, 4]); // 3 batches of 2 rows × 2 units an epoch
    finalize();

    const t = readTrace(file);
    expect(traceProblems(t)).toEqual([]);
    const named = (cat: string, name: string) => t.program.filter((e) => e.cat === cat && e.name === name);
    const blocks = named('pipeline', 'epoch.block');
    expect(blocks.map((b) => b.args.epoch)).toEqual([0, 1]);
    const fetches = named('dataloader', 'fetch');
    const forwards = named('compute', 'forward');
    expect(fetches).toHaveLength(6); // three batches an epoch; the iterator's end is no fetch
    // ours, each with tfjsAutoTrace's predict inside
    const outer = forwards.filter((f) => !forwards.some((o) => o.id === f.args.p_idx));
    expect(outer).toHaveLength(6);
    expect(forwards.filter((f) => !outer.includes(f)).map((f) => outer.some((o) => o.id === f.args.p_idx))).toEqual(Array(6).fill(true));
    for (const e of [...fetches, ...outer]) {
      const block = blocks.find((b) => b.id === e.args.p_idx);
      expect(ancestry(t.byId, e)[0], `${e.name} ${e.id}`).toBe('epoch.block');
      expect(e.args.epoch).toBe(block!.args.epoch);
    }
  });
});
