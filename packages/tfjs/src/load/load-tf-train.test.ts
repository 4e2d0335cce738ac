// What loadTf picks can train a conv net: wasm lacks the kernels unless loadTf adds them.
// Its own file: kernel registrations are process-wide, and this needs a wasm backend without them first.
import { describe, expect, it } from 'vitest';
import { loadTf, type Tf } from '../index.js';

function convNet(tf: Tf) {
  const model = tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [12, 12, 1], filters: 4, kernelSize: 3, strides: 2, padding: 'same', activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }) }),
      tf.layers.depthwiseConv2d({ kernelSize: 3, padding: 'same', depthwiseInitializer: tf.initializers.glorotUniform({ seed: 2 }) }),
      tf.layers.flatten(),
      tf.layers.dense({ units: 2, activation: 'softmax', kernelInitializer: tf.initializers.glorotUniform({ seed: 3 }) }),
    ],
  });
  model.compile({ optimizer: tf.train.adam(0.01), loss: 'categoricalCrossentropy' });
  return model;
}

/** Two classes a conv net separates: a bright left half or a bright right half. */
function data(tf: Tf) {
  return tf.tidy(() => {
    const n = 32;
    const labels = tf.tensor1d(Array.from({ length: n }, (_, i) => i % 2), 'int32');
    const cols = tf.range(0, 12).reshape([1, 1, 12, 1]).less(6).cast('float32');
    const side = labels.reshape([n, 1, 1, 1]).cast('float32');
    const img = side.mul(cols).add(tf.scalar(1).sub(side).mul(tf.scalar(1).sub(cols))).tile([1, 12, 1, 1]);
    const x = img.add(tf.randomNormal([n, 12, 12, 1], 0, 0.3, 'float32', 4));
    return { x, y: tf.oneHot(labels, 2).cast('float32') };
  });
}

describe('loadTf picks a backend that trains', () => {
  it('wasmTraining: false leaves wasm as tfjs ships it: fitting a conv net fails for the missing kernel', async (ctx) => {
    const r = await loadTf({ prefer: ['wasm'], wasmTraining: false }).catch((e: Error) => e);
    if (r instanceof Error) return ctx.skip(`the wasm backend does not load here: ${r.message}`);
    const { tf } = r;
    expect(r.addedKernels).toEqual([]);
    expect(tf.getKernel('Conv2DBackpropFilter', 'wasm')).toBeUndefined();
    const { x, y } = data(tf);
    await expect(convNet(tf).fit(x, y, { epochs: 1, batchSize: 8, verbose: 0 })).rejects.toThrow(/Conv2DBackpropFilter|DepthwiseConv2dNativeBackprop/);
    tf.dispose([x, y]);
  });

  it('by default a conv net (conv2d + depthwise) trains on wasm: loss finite and falling, as on cpu', async (ctx) => {
    const r = await loadTf({ prefer: ['wasm'] }).catch((e: Error) => e);
    if (r instanceof Error) return ctx.skip(`the wasm backend does not load here: ${r.message}`);
    const { tf } = r;
    expect([r.backend, r.addedKernels.length]).toEqual(['wasm', 3]);
    const losses: Record<string, number[]> = {};
    for (const backend of ['wasm', 'cpu']) {
      await tf.setBackend(backend);
      const { x, y } = data(tf);
      const model = convNet(tf);
      const h = await model.fit(x, y, { epochs: 8, batchSize: 32, verbose: 0, shuffle: false });
      losses[backend] = h.history.loss as number[];
      tf.dispose([x, y]);
      model.dispose();
    }
    await tf.setBackend('wasm');
    const wasm = losses.wasm!;
    for (const l of wasm) expect(Number.isFinite(l)).toBe(true);
    expect(wasm[wasm.length - 1]!).toBeLessThan(wasm[0]! * 0.9);
    // Same seeds, same data, one batch per epoch: the two backends take the same steps.
    for (let i = 0; i < wasm.length; i++) expect(Math.abs(wasm[i]! - losses.cpu![i]!)).toBeLessThan(1e-3 * Math.max(1, Math.abs(losses.cpu![i]!)));
  });
});
