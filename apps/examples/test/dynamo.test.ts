import { describe, expect, it } from 'vitest';
import { childrenOf } from '@dftracer/testing';
import { expectValid, named, ofCat, runExample } from './harness.js';

describe('dynamo examples', () => {
  it('dynamo-basic: @dynamo.compile on SimpleModel.forward traces each kernel inside the call', async () => {
    const run = await runExample('dynamo-basic', { env: { DFTRACER_DISABLE_IO: '1' } });
    expect(run.files).toHaveLength(1);
    expect(run.files[0]).toMatch(/dynamo_trace-[0-9a-f]+-app\.pfw\.gz$/);
    await expectValid(run.files);
    expect(run.stdout).toContain('output shape [1,10]');
    const d = ofCat(run.events, 'dynamo');
    const calls = named(d, 'dynamo.forward');
    expect(calls).toHaveLength(1);
    const kernels = childrenOf(d, calls).map((e) => e.name);
    for (const k of ['function.FusedConv2D', 'function.Relu', 'function.MaxPool', 'function._FusedMatMul']) expect(kernels).toContain(k);
    expect(childrenOf(d, calls).every((e) => e.args?.grad_enabled === 0)).toBe(true);
    expect(ofCat(run.events, 'POSIX')).toHaveLength(0); // DFTRACER_DISABLE_IO=1
  });

  it('dynamo-create-backend: per-epoch backends, forward and backward kernels with epoch and step', async () => {
    const run = await runExample('dynamo-create-backend');
    await expectValid(run.files);
    const d = ofCat(run.events, 'dynamo');
    const applies = d.filter((e) => e.args?.op === 'call');
    expect(applies).toHaveLength(2 * 4); // 2 epochs × 4 batches
    expect(new Set(applies.map((e) => e.args?.epoch))).toEqual(new Set([0, 1]));
    expect(applies.filter((e) => e.args?.epoch === 1).map((e) => e.args?.step)).toEqual([0, 1, 2, 3]);
    // the layers as module events, the kernels inside them
    const modules = d.filter((e) => e.args?.op === 'call_module');
    expect(new Set(modules.map((e) => e.args?.target))).toEqual(new Set(['conv1', 'conv2', 'pool', 'flatten', 'fc1', 'fc2']));
    // autograd: the backward kernels of optimizer.minimize
    for (const k of ['function.Conv2DBackpropFilter', 'function.Conv2DBackpropInput', 'function.MaxPoolGrad']) expect(named(d, k)).toHaveLength(8 * (k.endsWith('Filter') ? 2 : 1));
    // the images read through the loader are traced too
    expect(named(ofCat(run.events, "POSIX"), "read").length).toBeGreaterThanOrEqual(2 * 64);
  });

  it('dynamo-decorator-training: @dynamo.compile on ConvNet.forward in a training loop, backward kernels included', async () => {
    const run = await runExample('dynamo-decorator-training');
    await expectValid(run.files);
    const d = ofCat(run.events, 'dynamo');
    const calls = named(d, 'dynamo.forward');
    expect(calls.map((e) => e.args?.grad_enabled)).toEqual([0, 1, 1, 1, 1, 1, 1]); // the build call, then 2 epochs × 3 batches
    expect(childrenOf(named(d, 'function.FusedConv2D'), calls)).toHaveLength(2 * 7);
    expect(named(d, 'function.Conv2DBackpropFilter')).toHaveLength(2 * 6);
    expect(named(d, 'function.MaxPoolGrad')).toHaveLength(6);
  });

  it('dynamo-custom-tracer: the tracer name, epoch, step, image index and size on every event', async () => {
    const run = await runExample('dynamo-custom-tracer');
    await expectValid(run.files);
    const calls = named(ofCat(run.events, 'dynamo'), 'resnet50.forward');
    expect(calls.map((e) => e.args?.step)).toEqual([100, 101, 102]);
    expect(calls.map((e) => e.args?.image_idx)).toEqual([42, 46, 50]);
    const kernels = childrenOf(run.events, calls);
    expect(kernels.length).toBeGreaterThanOrEqual(3 * 3);
    expect(kernels.every((e) => e.args?.epoch === 1 && JSON.stringify(e.args?.image_size) === '[224,224]')).toBe(true);
  });

  it('graph-analysis: the table, op counts, memory, FLOPs, bound nodes and one graph per branch', async () => {
    const run = await runExample('graph-analysis');
    await expectValid(run.files);
    const out = run.stdout;
    expect(out).toContain('Captured 1 graph(s)');
    expect(out).toMatch(/placeholder +x/);
    expect(out).toMatch(/call_function +fused_conv2d +FusedConv2D/);
    expect(out).toMatch(/op counts \{.*FusedConv2D: 1/);
    // 16 filters of 3×3×3 over 222×222 outputs: 2·27·16·222² ≈ 42.6 M multiply-adds counted as FLOPs, plus bias
    const mflops = Number(/FLOPs: ([\d.]+) M/.exec(out)?.[1]);
    expect(mflops).toBeGreaterThan(42);
    expect(mflops).toBeLessThan(50);
    expect(out).toMatch(/fused_conv2d is compute-bound/);
    expect(out).toMatch(/relu is memory-bound/);
    expect(out).toMatch(/memory: 10\.\d\d MiB/);
    expect(out).toContain('gave 3 graphs');
    expect(out).toMatch(/Multiply\(\{ a: x2, b: x2 \}\)/);
    expect(out).toMatch(/Multiply\(\{ a: x2, b: _tensor_constant0 \}\)/);
    // the compiled calls are traced as well
    expect(ofCat(run.events, 'dynamo').filter((e) => e.args?.op === 'call')).toHaveLength(4);
  });
});
