import * as tf from '@tensorflow/tfjs';
import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { compile, createBackend, kernelCost } from './index.js';
import { simpleModel } from './models.test-util.js';

// No tracer in this file: graphs are captured without one, hooking kernels for the capturing call only.

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('graph capture', () => {
  const backend = createBackend({ name: 'simple' });
  const model = compile(simpleModel(), { backend });

  it('captures the SimpleModel graph: placeholders, weights, kernels, layers, output', () => {
    const x = tf.randomNormal([1, 32, 32, 3], 0, 1, 'float32', 1);
    model.predict(x);
    expect(kernelHubStatus()).toEqual({ listeners: 0, wrappedKernels: 0 });
    expect(backend.graphs).toHaveLength(1);
    const g = backend.graphs[0]!;
    expect(g.name).toBe('SimpleModel.predict_graph_0');
    expect(g.signature).toBe('float32[1,32,32,3]');
    expect(g.nodes.map((n) => [n.op, n.name, n.target, n.args.map((a) => a.name).join(','), n.outputs.map((o) => `${o.dtype}[${o.shape}]`).join(' ')])).toEqual([
      ['placeholder', 'x', 'x', '', 'float32[1,32,32,3]'],
      ['get_attr', 'conv_kernel', 'conv/kernel', '', 'float32[3,3,3,16]'],
      ['get_attr', 'conv_bias', 'conv/bias', '', 'float32[16]'],
      ['get_attr', 'fc_kernel', 'fc/kernel', '', 'float32[3600,10]'],
      ['get_attr', 'fc_bias', 'fc/bias', '', 'float32[10]'],
      ['call_function', 'slice', 'Slice', 'x', 'float32[1,32,32,3]'],
      ['call_module', 'conv', 'conv', 'slice', 'float32[1,30,30,16]'],
      ['call_function', 'fused_conv2d', 'FusedConv2D', 'slice,conv_kernel,conv_bias', 'float32[1,30,30,16]'],
      ['call_module', 'relu', 'relu', 'fused_conv2d', 'float32[1,30,30,16]'],
      ['call_function', 'relu_1', 'Relu', 'fused_conv2d', 'float32[1,30,30,16]'],
      ['call_module', 'pool', 'pool', 'relu_1', 'float32[1,15,15,16]'],
      ['call_function', 'max_pool', 'MaxPool', 'relu_1', 'float32[1,15,15,16]'],
      ['call_module', 'flatten', 'flatten', 'max_pool', 'float32[1,3600]'],
      ['call_function', 'reshape', 'Reshape', 'max_pool', 'float32[1,3600]'],
      ['call_module', 'fc', 'fc', 'reshape', 'float32[1,10]'],
      ['call_function', 'reshape_1', 'Reshape', 'reshape', 'float32[1,1,3600]'],
      ['call_function', 'reshape_2', 'Reshape', 'fc_kernel', 'float32[1,3600,10]'],
      ['call_function', 'fused_mat_mul', '_FusedMatMul', 'reshape_1,reshape_2,fc_bias', 'float32[1,1,10]'],
      ['call_function', 'reshape_3', 'Reshape', 'fused_mat_mul', 'float32[1,10]'],
      ['call_function', 'identity', 'Identity', 'reshape_3', 'float32[1,10]'],
      ['output', 'output', 'output', 'reshape_3', 'float32[1,10]'],
    ]);
    expect(g.nodes.filter((n) => n.op === 'call_function').map((n) => n.module)).toEqual([null, 'conv', 'relu', 'pool', 'flatten', 'fc', 'fc', 'fc', 'fc', null]);
    expect(g.opCounts()).toEqual({ Slice: 1, FusedConv2D: 1, Relu: 1, MaxPool: 1, Reshape: 4, _FusedMatMul: 1, Identity: 1 });
  });

  it('prints the table with torch.fx print_tabular columns', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const text = backend.graphs[0]!.printTabular();
    expect(log).toHaveBeenCalledWith(text);
    log.mockRestore();
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^opcode\s+name\s+target\s+args\s+kwargs$/);
    expect(lines[1]).toMatch(/^-+ {2}-+ {2}-+ {2}-+ {2}-+$/);
    expect(lines[2]).toMatch(/^placeholder\s+x\s+x\s+\(\)\s+\{\}$/);
    expect(lines).toContain(
      'call_function  fused_conv2d   FusedConv2D   (slice, conv_kernel, conv_bias)  ' + "{strides: [1,1], pad: 'valid', dataFormat: 'NHWC', dilations: [1,1], activation: 'linear'}",
    );
    expect(lines).toContain("call_module    pool           pool          (relu_1,)                        {class: 'MaxPooling2D'}");
    expect(lines[lines.length - 1]).toMatch(/^output\s+output\s+output\s+\(reshape_3,\)\s+\{\}$/);
  });

  it('estimates FLOPs of the convolution and the dense layer as by hand', () => {
    const g = backend.graphs[0]!;
    const flops = g.estimateFlops();
    // Conv 3→16, 3×3 over 32×32 (valid): 30·30·16 outputs, each 3·3·3 multiply-adds (2 FLOPs) plus its bias.
    const conv = 30 * 30 * 16 * (2 * 3 * 3 * 3) + 30 * 30 * 16;
    // Dense 3600→10: 10 outputs, each 3600 multiply-adds plus its bias.
    const dense = 10 * (2 * 3600) + 10;
    const relu = 30 * 30 * 16;
    const pool = 15 * 15 * 16 * (2 * 2);
    expect(flops.byTarget).toEqual({ Slice: 0, FusedConv2D: conv, Relu: relu, MaxPool: pool, Reshape: 0, _FusedMatMul: dense, Identity: 0 });
    expect(flops.total).toBe(conv + relu + pool + dense);
    expect(flops.byKind).toEqual({ movement: 0, conv, elementwise: relu, pooling: pool, matmul: dense });
    // A layer's node carries its kernels' FLOPs.
    expect(g.nodes.find((n) => n.name === 'conv')!.flops).toBe(conv);
    expect(g.nodes.find((n) => n.name === 'fc')!.flops).toBe(dense);
  });

  it('estimates memory as the sum of the tensors’ bytes', () => {
    const m = backend.graphs[0]!.estimateMemory();
    const f32 = (...dims: number[]) => dims.reduce((a, b) => a * b, 1) * 4;
    const inputs = f32(1, 32, 32, 3);
    const params = f32(3, 3, 3, 16) + f32(16) + f32(3600, 10) + f32(10);
    // slice, conv, relu, pool, flatten, the dense layer's reshapes, matmul, reshape, identity.
    const activations = f32(1, 32, 32, 3) + 2 * f32(1, 30, 30, 16) + 3 * f32(1, 3600) + f32(1, 3600, 10) + 3 * f32(1, 10);
    expect(m).toEqual({ inputs, params, activations, total: inputs + params + activations });
  });

  it('gives each kernel an arithmetic intensity and a memory- or compute-bound verdict', () => {
    const rows = backend.graphs[0]!.intensity();
    const conv = rows.find((r) => r.target === 'FusedConv2D')!;
    const bytes = (32 * 32 * 3 + 3 * 3 * 3 * 16 + 16 + 30 * 30 * 16) * 4;
    expect(conv.bytes).toBe(bytes);
    expect(conv.intensity).toBeCloseTo(conv.flops / bytes, 12);
    expect(conv.bound).toBe('compute');
    expect(rows.find((r) => r.target === 'Relu')!.bound).toBe('memory');
    expect(rows.find((r) => r.target === '_FusedMatMul')!.bound).toBe('memory');
    // A machine whose ridge point is higher than the conv's intensity makes it memory-bound.
    expect(backend.graphs[0]!.intensity({ ridge: 20 }).find((r) => r.target === 'FusedConv2D')!.bound).toBe('memory');
    expect(() => backend.graphs[0]!.intensity({ ridge: 0 })).toThrow(/options.ridge must be a positive number/);
  });

  it('writes the graph as readable code', () => {
    const code = backend.graphs[0]!.code();
    expect(code.split('\n')[0]).toBe('function SimpleModel_predict(x /* float32[1,32,32,3] */) {');
    expect(code).toContain('  const conv_kernel = this["conv/kernel"]; // float32[3,3,3,16]');
    expect(code).toContain('  // conv: Conv2D(slice) -> float32[1,30,30,16]');
    expect(code).toContain("  const fused_conv2d = FusedConv2D({ x: slice, filter: conv_kernel, bias: conv_bias }, {strides: [1,1], pad: 'valid', dataFormat: 'NHWC', dilations: [1,1], activation: 'linear'}); // float32[1,30,30,16]");
    expect(code.trimEnd().endsWith('  return reshape_3;\n}')).toBe(true);
  });

  it('captures again for a new input shape (a recompile), not for a shape it has seen', () => {
    model.predict(tf.zeros([1, 32, 32, 3]));
    expect(backend.graphs).toHaveLength(1);
    model.predict(tf.zeros([2, 32, 32, 3]));
    expect(backend.graphs).toHaveLength(2);
    const g = backend.graphs[1]!;
    expect(g.signature).toBe('float32[2,32,32,3]');
    expect(g.select('placeholder')[0]!.outputs[0]!.shape).toEqual([2, 32, 32, 3]);
    expect(g.estimateFlops().byTarget.FusedConv2D).toBe(2 * backend.graphs[0]!.estimateFlops().byTarget.FusedConv2D!);
    model.predict(tf.ones([2, 32, 32, 3]));
    expect(backend.graphs).toHaveLength(2);
  });

  it('splits a data-dependent branch into separate graphs, as Dynamo does with seed 004’s DynamicModule', () => {
    const dyn = createBackend({ name: 'dynamic' });
    const dynamicModule = compile(function forward(x: tf.Tensor) {
      if (x.sum().dataSync()[0]! > 0) return x.mul(x);
      return tf.mul(3, x);
    }, { backend: dyn });
    const input = tf.tensor1d([1, 2, 3, 4]);
    expect(Array.from(dynamicModule(input).dataSync())).toEqual([1, 4, 9, 16]);
    expect(Array.from(dynamicModule(input.neg()).dataSync())).toEqual([-3, -6, -9, -12]);
    dynamicModule(input);
    expect(dyn.graphs.map((g) => [g.partition, g.opCounts()])).toEqual([
      [0, { Sum: 1 }],
      [1, { Multiply: 1 }],
      [1, { Multiply: 1 }],
    ]);
    const [guard, square, triple] = dyn.graphs as [typeof dyn.graphs[0], typeof dyn.graphs[0], typeof dyn.graphs[0]];
    expect(guard.code()).toBe(['function forward(x /* float32[4] */) {', '  const sum = Sum({ x: x }, {keepDims: false}); // float32[]', '  return sum;', '}'].join('\n'));
    expect(square.code()).toContain('const multiply = Multiply({ a: x, b: x }); // float32[4]');
    expect(triple.select('get_attr').map((n) => n.target)).toEqual(['_tensor_constant0']);
    expect(triple.code()).toContain('const multiply = Multiply({ a: _tensor_constant0, b: x }); // float32[4]');
  });
});

describe('kernelCost', () => {
  it('counts the backward convolutions like the forward one', () => {
    const dy = { key: 'dy', shape: [1, 30, 30, 16], dtype: 'float32' };
    const filter = { key: 'filter', shape: [3, 3, 3, 16], dtype: 'float32' };
    const fwd = 2 * 30 * 30 * 16 * 3 * 3 * 3;
    expect(kernelCost('Conv2DBackpropInput', [dy, filter], [{ shape: [1, 32, 32, 3], dtype: 'float32' }], {})).toEqual({ flops: fwd, kind: 'conv' });
    expect(kernelCost('Conv2DBackpropFilter', [{ key: 'x', shape: [1, 32, 32, 3], dtype: 'float32' }, dy], [filter], { filterShape: [3, 3, 3, 16] })).toEqual({ flops: fwd, kind: 'conv' });
    expect(kernelCost('BatchMatMul', [{ key: 'a', shape: [4, 5], dtype: 'float32' }, { key: 'b', shape: [4, 6], dtype: 'float32' }], [{ shape: [5, 6], dtype: 'float32' }], { transposeA: true })).toEqual({ flops: 2 * 5 * 6 * 4, kind: 'matmul' });
    expect(kernelCost('Sum', [{ key: 'x', shape: [8, 8], dtype: 'float32' }], [{ shape: [8], dtype: 'float32' }], {})).toEqual({ flops: 64, kind: 'reduction' });
    expect(kernelCost('SomethingNew', [], [{ shape: [8], dtype: 'float32' }], {})).toEqual({ flops: 0, kind: 'unknown' });
  });
});
