import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createBackend, Dynamo, dynamo, type Graph } from './index.js';
import { profiledKernels, simpleModel } from './models.test-util.js';
import { ancestry, type TraceEvent } from '@dftracer/testing';
import { startTrace } from './trace.test-util.js';

// One tracer for the file (vitest runs each file in its own process); checks run on the trace at the end.
let stop: () => TraceEvent[];
const checks: ((events: TraceEvent[]) => void)[] = [];

beforeAll(async () => {
  await tf.setBackend('cpu');
  stop = startTrace('compile');
});

afterAll(() => {
  const events = stop();
  for (const c of checks) c(events);
});

/** The seed's SimpleModel written with tfjs ops, its forward compiled by the decorator. */
class SimpleModule {
  readonly conv = tf.variable(tf.randomNormal([3, 3, 3, 16], 0, 0.1, 'float32', 7) as tf.Tensor4D, true, 'simple_conv_w');
  readonly convB = tf.variable(tf.zeros([16]), true, 'simple_conv_b');
  readonly fc = tf.variable(tf.randomNormal([16 * 15 * 15, 10], 0, 0.01, 'float32', 8) as tf.Tensor2D, true, 'simple_fc_w');
  readonly fcB = tf.variable(tf.zeros([10]), true, 'simple_fc_b');

  @dynamo.compile
  forward(x: tf.Tensor4D): tf.Tensor2D {
    let y = tf.conv2d(x, this.conv, 1, 'valid').add(this.convB) as tf.Tensor4D;
    y = tf.relu(y);
    y = tf.maxPool(y, 2, 2, 'valid');
    const flat = y.reshape([y.shape[0], -1]) as tf.Tensor2D;
    return flat.matMul(this.fc).add(this.fcB);
  }
}

describe('compile', () => {
  it('traces every kernel of a compiled LayersModel call, nested under the call and its layers', async () => {
    const backend = createBackend({ name: 'simple' });
    const model = simpleModel();
    const m = compile(model, { backend });
    const x = tf.randomNormal([1, 32, 32, 3], 0, 1, 'float32', 9) as tf.Tensor4D;
    const plain = (model.predict(x) as tf.Tensor).dataSync().slice();
    let traced: Float32Array | undefined;
    const expected = await profiledKernels(() => {
      const y = m.predict(x) as tf.Tensor;
      traced = y.dataSync() as Float32Array;
      return y;
    });
    expect(traced).toEqual(plain);
    expect(expected).toEqual(['Slice', 'FusedConv2D', 'Relu', 'MaxPool', 'Reshape', 'Reshape', 'Reshape', '_FusedMatMul', 'Reshape', 'Identity']);
    checks.push((events) => {
      const calls = events.filter((e) => e.name === 'simple.SimpleModel.predict');
      expect(calls).toHaveLength(1);
      const call = calls[0]!;
      expect(call.cat).toBe('dynamo');
      expect(call.args).toMatchObject({ op: 'call', target: 'SimpleModel.predict', grad_enabled: 0 });
      const inside = events.filter((e) => e.id !== call.id && ancestry(events, e).includes(call.name));
      const kernels = inside.filter((e) => e.name.startsWith('function.'));
      expect(kernels.map((e) => e.name.slice('function.'.length))).toEqual(expected);
      expect(inside.every((e) => e.cat === 'dynamo')).toBe(true);
      const parentOf = (e: TraceEvent) => events.find((p) => p.id === e.args.p_idx)!;
      expect(kernels.map((k) => [k.name, parentOf(k).name, parentOf(k).args.target ?? null])).toEqual([
        ['function.Slice', 'simple.SimpleModel.predict', 'SimpleModel.predict'],
        ['function.FusedConv2D', 'module.Conv2D', 'conv'],
        ['function.Relu', 'module.ReLU', 'relu'],
        ['function.MaxPool', 'module.MaxPooling2D', 'pool'],
        ['function.Reshape', 'module.Flatten', 'flatten'],
        ['function.Reshape', 'module.Dense', 'fc'],
        ['function.Reshape', 'module.Dense', 'fc'],
        ['function._FusedMatMul', 'module.Dense', 'fc'],
        ['function.Reshape', 'module.Dense', 'fc'],
        ['function.Identity', 'simple.SimpleModel.predict', 'SimpleModel.predict'],
      ]);
      for (const e of inside) {
        const p = parentOf(e);
        expect(e.args.level).toBe(p.args.level + 1);
        expect(e.ts).toBeGreaterThanOrEqual(p.ts);
        expect(e.ts + e.dur).toBeLessThanOrEqual(p.ts + p.dur);
      }
      const modules = inside.filter((e) => e.name.startsWith('module.'));
      expect(modules.map((e) => e.args.op)).toEqual(['call_module', 'call_module', 'call_module', 'call_module', 'call_module']);
      const conv = kernels[1]!;
      expect(conv.args).toMatchObject({ grad_enabled: 0, op: 'call_function', inputs: 'float32[1,32,32,3], float32[3,3,3,16], float32[16]', outputs: 'float32[1,30,30,16]' });
      expect(kernels.every((k) => k.args.grad_enabled === 0 && k.args.op === 'call_function')).toBe(true);
    });
    // The untraced model object is the user's own: its calls are not traced.
    model.predict(x);
    checks.push((events) => expect(events.filter((e) => e.name === 'module.Conv2D')).toHaveLength(1));
  });

  it('compiles a method with @dynamo.compile (the seed SimpleModel written with tfjs ops)', async () => {
    const net = new SimpleModule();
    const x = tf.randomNormal([1, 32, 32, 3], 0, 1, 'float32', 10) as tf.Tensor4D;
    const expected = await profiledKernels(() => net.forward(x));
    expect(expected).toEqual(['Conv2D', 'Add', 'Relu', 'MaxPool', 'Reshape', 'BatchMatMul', 'Add']);
    const g = dynamo.defaultBackend().graphs.find((gr) => gr.fn === 'forward')!;
    expect(g.select('get_attr').map((n) => n.target)).toEqual(['simple_conv_w', 'simple_conv_b', 'simple_fc_w', 'simple_fc_b']);
    expect(g.select('placeholder').map((n) => n.name)).toEqual(['x']);
    checks.push((events) => {
      const call = events.find((e) => e.name === 'dynamo.forward')!;
      expect(call).toBeDefined();
      expect(events.filter((e) => e.args.p_idx === call.id).map((e) => e.name.slice('function.'.length))).toEqual(expected);
    });
  });

  it('writes epoch, step, image_idx and image_size of a Dynamo tracer into its events', () => {
    const tracer = new Dynamo({ name: 'resnet50', epoch: 1, step: 100, imageIdx: 42, imageSize: [224, 224] });
    const relu = tracer.compile(function reluStep(x: tf.Tensor) {
      return tf.relu(x);
    });
    const x = tf.tensor1d([-1, 2]);
    expect(Array.from(relu(x).dataSync())).toEqual([0, 2]);
    tracer.update({ step: 101 });
    relu(x);
    expect(tracer.graphs).toHaveLength(1);
    checks.push((events) => {
      const ev = events.filter((e) => e.name === 'function.Relu' && e.args.epoch === 1);
      expect(ev.map((e) => e.args.step)).toEqual([100, 101]);
      expect(ev[0]!.args).toMatchObject({ grad_enabled: 0, op: 'call_function', inputs: 'float32[2]', outputs: 'float32[2]', epoch: 1, step: 100, image_idx: 42, image_size: [224, 224] });
      const calls = events.filter((e) => e.name === 'resnet50.reluStep');
      expect(calls.map((e) => e.args.step)).toEqual([100, 101]);
    });
  });

  it('hands each captured graph to a custom backend function, as torch.compile does', () => {
    const seen: Graph[] = [];
    const f = compile((a: tf.Tensor, b: tf.Tensor) => a.mul(b).sum(), { backend: (g) => seen.push(g) });
    const t = tf.tensor1d([1, 2, 3]);
    expect(f(t, t).dataSync()[0]).toBe(14);
    f(t, t);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.select('placeholder').map((n) => n.name)).toEqual(['a', 'b']);
    expect(seen[0]!.opCounts()).toEqual({ Multiply: 1, Sum: 1 });
  });

  it('returns the function or model untouched when enable is false', () => {
    const fn = (x: tf.Tensor) => x.square();
    const model = simpleModel();
    expect(compile(fn, { backend: createBackend({ enable: false }) })).toBe(fn);
    expect(compile(model, { backend: { enable: false } })).toBe(model);
    expect(new Dynamo({ enable: false }).compile(fn)).toBe(fn);
  });

  it('names the argument a bad call got wrong', () => {
    expect(() => createBackend({ epoch: -1 })).toThrow(/createBackend: epoch must be a non-negative integer/);
    expect(() => createBackend({ imageSize: 'big' as never })).toThrow(/imageSize must be a number or an array/);
    expect(() => createBackend({ autograd: 'yes' as never })).toThrow(/autograd must be a boolean/);
    expect(() => compile(42 as never)).toThrow(/compile: expects a function, a tfjs LayersModel or options/);
    expect(() => compile((x: number) => x, 3 as never)).toThrow(/second argument must be options/);
    expect(() => compile((x: number) => x, { backend: 5 as never })).toThrow(/options.backend must be/);
    expect(() => new Dynamo().update({ step: 1.5 })).toThrow(/update: step must be a non-negative integer/);
  });
});
