import { numel, type TensorMeta } from './tensors.js';

/** A kernel input by its name in the kernel's inputs map (`x`, `filter`, `a`, `b`, `dy`, …). */
export interface NamedMeta extends TensorMeta {
  readonly key: string;
}

export type KernelClass = 'conv' | 'matmul' | 'elementwise' | 'pooling' | 'reduction' | 'normalization' | 'movement' | 'unknown';

/**
 * Floating-point operations of one kernel call, counting a multiply-add as 2, as the usual FLOP
 * tables do: convolution 2·out·kh·kw·cin, matmul 2·out·k, +1 per output element for a fused bias
 * and for a fused activation, 1 per element for elementwise ops, kh·kw per pooled output element,
 * 1 per input element for reductions; data movement (reshape, cast, transpose, …) costs 0.
 */
export interface KernelCost {
  readonly flops: number;
  readonly kind: KernelClass;
}

const ELEMENTWISE = new Set([
  'Abs', 'Acos', 'Acosh', 'Add', 'AddN', 'Asin', 'Asinh', 'Atan', 'Atan2', 'Atanh', 'Ceil', 'ClipByValue', 'Cos', 'Cosh', 'Elu', 'EluGrad', 'Equal', 'Erf', 'Exp', 'Expm1',
  'Floor', 'FloorDiv', 'Greater', 'GreaterEqual', 'IsFinite', 'IsInf', 'IsNan', 'LeakyRelu', 'Less', 'LessEqual', 'Log', 'Log1p', 'LogicalAnd', 'LogicalNot', 'LogicalOr',
  'LogicalXor', 'Maximum', 'Minimum', 'Mod', 'Multiply', 'Neg', 'NotEqual', 'Pow', 'Prelu', 'RealDiv', 'Reciprocal', 'Relu', 'Relu6', 'Round', 'Rsqrt', 'Selu', 'Sigmoid',
  'Sign', 'Sin', 'Sinh', 'Softplus', 'Sqrt', 'Square', 'SquaredDifference', 'Step', 'Sub', 'Tan', 'Tanh', 'Select', 'BiasAdd',
]);
const REDUCTION = new Set(['Sum', 'Mean', 'Max', 'Min', 'Prod', 'All', 'Any', 'ArgMax', 'ArgMin', 'EuclideanNorm']);
const MOVEMENT = new Set([
  'Reshape', 'Identity', 'Cast', 'Transpose', 'Concat', 'Slice', 'StridedSlice', 'Pad', 'PadV2', 'MirrorPad', 'Tile', 'GatherV2', 'GatherNd', 'Pack', 'Unpack', 'Fill',
  'ZerosLike', 'OnesLike', 'Reverse', 'SplitV', 'BroadcastTo', 'OneHot', 'Range', 'ScatterNd', 'TensorScatterUpdate', 'Complex', 'Real', 'Imag', 'DepthToSpace', 'SpaceToBatchND',
  'BatchToSpaceND', 'Where', 'Bincount', 'Unique', 'TopK', 'Multinomial', 'RandomUniform', 'RandomNormal', 'Draw',
]);

const last = (s: readonly number[], i: number): number => s[s.length - i] ?? 1;

function isMetaList(v: unknown): v is readonly TensorMeta[] {
  return Array.isArray(v) && v.every((t) => t !== null && typeof t === 'object' && Array.isArray((t as TensorMeta).shape));
}

function input(ins: readonly NamedMeta[], key: string, at: number): TensorMeta | undefined {
  return ins.find((t) => t.key === key) ?? ins[at];
}

function pair(v: unknown): [number, number] {
  if (typeof v === 'number') return [v, v];
  if (Array.isArray(v)) return [Number(v[0] ?? 1), Number(v[1] ?? v[0] ?? 1)];
  return [1, 1];
}

/** Extra per-element work of a fused kernel: a bias add and a (non-linear) activation. */
function fusedExtras(ins: readonly NamedMeta[], attrs: Readonly<Record<string, unknown>> | undefined, outElems: number): number {
  let extra = 0;
  if (ins.some((t) => t.key === 'bias')) extra += outElems;
  const act = attrs?.activation;
  if (typeof act === 'string' && act !== 'linear') extra += outElems;
  return extra;
}

export function kernelCost(kernel: string, ins: readonly NamedMeta[], outs: readonly TensorMeta[], attrs: Readonly<Record<string, unknown>> | undefined): KernelCost {
  if (typeof kernel !== 'string') throw new TypeError(`kernelCost: kernel must be a kernel name; got ${typeof kernel}`);
  if (!isMetaList(ins)) throw new TypeError('kernelCost: ins must be an array of { key, shape, dtype }');
  if (!isMetaList(outs)) throw new TypeError('kernelCost: outs must be an array of { shape, dtype }');
  if (attrs !== undefined && (attrs === null || typeof attrs !== 'object')) throw new TypeError(`kernelCost: attrs must be an object or undefined; got ${String(attrs)}`);
  const out = outs[0];
  const outElems = out ? numel(out.shape) : 0;
  switch (kernel) {
    case 'Conv2D':
    case 'FusedConv2D': {
      const f = input(ins, 'filter', 1);
      if (!f || f.shape.length !== 4) return { flops: 0, kind: 'unknown' };
      const [kh, kw, cin] = f.shape as [number, number, number, number];
      return { flops: 2 * outElems * kh * kw * cin + (kernel === 'FusedConv2D' ? fusedExtras(ins, attrs, outElems) : 0), kind: 'conv' };
    }
    case 'DepthwiseConv2dNative':
    case 'FusedDepthwiseConv2D': {
      const f = input(ins, 'filter', 1);
      if (!f || f.shape.length !== 4) return { flops: 0, kind: 'unknown' };
      return { flops: 2 * outElems * f.shape[0]! * f.shape[1]! + (kernel === 'FusedDepthwiseConv2D' ? fusedExtras(ins, attrs, outElems) : 0), kind: 'conv' };
    }
    case 'Conv2DBackpropInput': {
      // dx = conv_transpose(dy, filter): the forward conv's multiply-adds.
      const dy = input(ins, 'dy', 0);
      const f = input(ins, 'filter', 1);
      if (!dy || !f || f.shape.length !== 4) return { flops: 0, kind: 'unknown' };
      return { flops: 2 * numel(dy.shape) * f.shape[0]! * f.shape[1]! * f.shape[2]!, kind: 'conv' };
    }
    case 'Conv2DBackpropFilter': {
      const dy = input(ins, 'dy', 1);
      const fs = attrs?.filterShape;
      if (!dy || !Array.isArray(fs) || fs.length !== 4) return { flops: 0, kind: 'unknown' };
      return { flops: 2 * numel(dy.shape) * Number(fs[0]) * Number(fs[1]) * Number(fs[2]), kind: 'conv' };
    }
    case 'BatchMatMul':
    case '_FusedMatMul': {
      const a = input(ins, 'a', 0);
      if (!a || a.shape.length < 2) return { flops: 0, kind: 'unknown' };
      const k = attrs?.transposeA ? last(a.shape, 2) : last(a.shape, 1);
      return { flops: 2 * outElems * k + (kernel === '_FusedMatMul' ? fusedExtras(ins, attrs, outElems) : 0), kind: 'matmul' };
    }
    case 'MaxPool':
    case 'AvgPool': {
      const [kh, kw] = pair(attrs?.filterSize);
      return { flops: outElems * kh * kw, kind: 'pooling' };
    }
    case 'MaxPoolGrad':
    case 'AvgPoolGrad': {
      const dy = input(ins, 'dy', 0);
      const [kh, kw] = pair(attrs?.filterSize);
      return { flops: (dy ? numel(dy.shape) : outElems) * kh * kw, kind: 'pooling' };
    }
    case 'Softmax':
      // max, subtract, exp, sum, divide per element.
      return { flops: 5 * outElems, kind: 'normalization' };
    case 'FusedBatchNorm':
      return { flops: 4 * outElems, kind: 'normalization' };
    default:
      if (ELEMENTWISE.has(kernel)) return { flops: outElems, kind: 'elementwise' };
      if (REDUCTION.has(kernel)) {
        const x = input(ins, 'x', 0);
        return { flops: x ? numel(x.shape) : 0, kind: 'reduction' };
      }
      if (MOVEMENT.has(kernel)) return { flops: 0, kind: 'movement' };
      return { flops: 0, kind: 'unknown' };
  }
}
