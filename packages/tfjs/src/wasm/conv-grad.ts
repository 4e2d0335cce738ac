/**
 * tfjs-backend-wasm 4.22 runs conv nets forward but cannot train them: it has no
 * `Conv2DBackpropFilter`, `DepthwiseConv2dNativeBackpropFilter` or
 * `DepthwiseConv2dNativeBackpropInput` kernel. This registers them, built from the wasm backend's
 * own kernels, so training runs on wasm instead of the ~10× slower cpu backend. The tfjs namespace
 * is a parameter: tfjs is an optional peer of this package, never imported at run time.
 */
import type { TensorInfo } from '@tensorflow/tfjs';
import type { Tf } from '../tf.js';

type KernelFn = (args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs?: Record<string, unknown> }) => TensorInfo;
type Kernels = Record<'conv2d' | 'conv2dBackpropInput' | 'transpose' | 'pad' | 'slice' | 'reshape' | 'multiply' | 'sum', KernelFn>;
interface WasmBackend {
  disposeData(id: object): void;
  makeOutput(shape: number[], dtype: 'float32', memoryOffset?: number, values?: Float32Array): TensorInfo;
}
interface ConvAttrs {
  strides: [number, number] | number;
  pad: 'valid' | 'same' | number;
  dimRoundingMode?: 'floor' | 'round' | 'ceil';
  dataFormat?: string;
}

/** The kernels this adds, in the order they are checked. */
export const WASM_TRAINING_KERNELS = ['Conv2DBackpropFilter', 'DepthwiseConv2dNativeBackpropFilter', 'DepthwiseConv2dNativeBackpropInput'] as const;

/** Runs wasm kernels, keeping every intermediate so `done()` frees them all (the result excepted). */
function scratch(backend: unknown) {
  const temps: TensorInfo[] = [];
  return {
    run(fn: KernelFn, inputs: Record<string, TensorInfo>, attrs: Record<string, unknown>): TensorInfo {
      const out = fn({ inputs, backend, attrs });
      temps.push(out);
      return out;
    },
    keep(t: TensorInfo): TensorInfo {
      temps.push(t);
      return t;
    },
    done(): void {
      for (const t of temps) (backend as WasmBackend).disposeData(t.dataId);
    },
  };
}

/**
 * dW[kh,kw,ci,co] = Σ x[b, oh·s+kh, ow·s+kw, ci] · dy[b,oh,ow,co] is a convolution of x (channels
 * as batch) with dy (batch as input channels), dilated by the stride.
 */
function conv2dBackpropFilter(tf: Tf, k: Kernels, backend: unknown, x: TensorInfo, dy: TensorInfo, filterShape: [number, number, number, number], a: ConvAttrs): TensorInfo {
  if (a.dataFormat !== undefined && a.dataFormat !== 'NHWC') throw new Error(`Conv2DBackpropFilter on wasm: dataFormat ${a.dataFormat} (only NHWC)`);
  const info = tf.backend_util.computeConv2DInfo(x.shape as [number, number, number, number], filterShape, a.strides, 1, a.pad, a.dimRoundingMode);
  const { top, bottom, left, right } = info.padInfo;
  const s = scratch(backend);
  try {
    const xp = top || bottom || left || right ? s.run(k.pad, { x }, { paddings: [[0, 0], [top, bottom], [left, right], [0, 0]], constantValue: 0 }) : x;
    const xT = s.run(k.transpose, { x: xp }, { perm: [3, 1, 2, 0] }); // [ci, H, W, b]
    const dyT = s.run(k.transpose, { x: dy }, { perm: [1, 2, 0, 3] }); // [oh, ow, b, co]
    const full = s.run(k.conv2d, { x: xT, filter: dyT }, { strides: [1, 1], pad: 'valid', dataFormat: 'NHWC', dilations: [info.strideHeight, info.strideWidth] });
    const [kh, kw, ci, co] = filterShape;
    const cut = s.run(k.slice, { x: full }, { begin: [0, 0, 0, 0], size: [ci, kh, kw, co] });
    return k.transpose({ inputs: { x: cut }, backend, attrs: { perm: [1, 2, 0, 3] } });
  } finally {
    s.done();
  }
}

/** I[c, c', 0] as a wasm tensor: selects a channel's own block of a block-diagonal filter. */
function eye(backend: unknown, n: number): TensorInfo {
  const v = new Float32Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  return (backend as WasmBackend).makeOutput([n, n, 1], 'float32', undefined, v);
}

function checkDepthwise(name: string, a: ConvAttrs & { dilations?: [number, number] | number }): void {
  const d = a.dilations;
  if (d !== undefined && d !== 1 && !(Array.isArray(d) && d[0] === 1 && d[1] === 1)) throw new Error(`${name} on wasm: dilations ${JSON.stringify(d)} (only 1)`);
}

/**
 * A depthwise conv with filter w[kh,kw,ci,m] is the full conv with the block-diagonal filter
 * W[kh,kw,c,c'·m+j] = w[kh,kw,c,j]·[c = c']; its gradients are that conv's, restricted to the
 * diagonal. Costs ci× the depthwise work, but uses only kernels wasm has.
 */
function registerDepthwise(tf: Tf, k: Kernels): void {
  tf.registerKernel({
    kernelName: 'DepthwiseConv2dNativeBackpropFilter',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, dy } = inputs as { x: TensorInfo; dy: TensorInfo };
      const a = attrs as unknown as ConvAttrs & { filterShape: [number, number, number, number] };
      checkDepthwise('DepthwiseConv2dNativeBackpropFilter', a);
      const [kh, kw, ci, m] = a.filterShape;
      const s = scratch(backend);
      try {
        const full = s.keep(conv2dBackpropFilter(tf, k, backend, x, dy, [kh, kw, ci, ci * m], a));
        const blocks = s.run(k.reshape, { x: full }, { shape: [kh, kw, ci, ci, m] });
        const diag = s.run(k.multiply, { a: blocks, b: s.keep(eye(backend, ci)) }, {});
        return k.sum({ inputs: { x: diag }, backend, attrs: { axis: [3], keepDims: false } });
      } finally {
        s.done();
      }
    },
  });
  tf.registerKernel({
    kernelName: 'DepthwiseConv2dNativeBackpropInput',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { dy, filter } = inputs as { dy: TensorInfo; filter: TensorInfo };
      const a = attrs as unknown as ConvAttrs & { inputShape: [number, number, number, number] };
      checkDepthwise('DepthwiseConv2dNativeBackpropInput', a);
      const [kh, kw, ci, m] = filter.shape as [number, number, number, number];
      const s = scratch(backend);
      try {
        const w5 = s.run(k.reshape, { x: filter }, { shape: [kh, kw, ci, 1, m] });
        const blocks = s.run(k.multiply, { a: w5, b: s.keep(eye(backend, ci)) }, {});
        const full = s.run(k.reshape, { x: blocks }, { shape: [kh, kw, ci, ci * m] });
        return k.conv2dBackpropInput({
          inputs: { dy, filter: full },
          backend,
          attrs: { strides: a.strides, pad: a.pad, dimRoundingMode: a.dimRoundingMode, dataFormat: 'NHWC', inputShape: a.inputShape },
        });
      } finally {
        s.done();
      }
    },
  });
}

/**
 * Gives the wasm backend the kernels it lacks to train conv nets (`Conv2DBackpropFilter`,
 * `DepthwiseConv2dNativeBackpropFilter`, `DepthwiseConv2dNativeBackpropInput`), built from its own
 * kernels. Call after `@tensorflow/tfjs-backend-wasm` is imported; kernels already present are left
 * alone. Returns the names it added (empty when none were missing).
 */
export function registerWasmConvGrad(tf: Tf): string[] {
  if (tf === null || typeof tf !== 'object' || typeof tf.getKernel !== 'function' || typeof tf.registerKernel !== 'function') {
    throw new TypeError('registerWasmConvGrad: tf must be the @tensorflow/tfjs namespace');
  }
  const missing = WASM_TRAINING_KERNELS.filter((n) => !tf.getKernel(n, 'wasm'));
  if (missing.length === 0) return [];
  const get = (name: string): KernelFn => {
    const kn = tf.getKernel(name, 'wasm');
    if (!kn) throw new Error(`registerWasmConvGrad: the wasm backend has no ${name} kernel (import '@tensorflow/tfjs-backend-wasm' first)`);
    return kn.kernelFunc as unknown as KernelFn;
  };
  const k: Kernels = {
    conv2d: get('Conv2D'),
    conv2dBackpropInput: get('Conv2DBackpropInput'),
    transpose: get('Transpose'),
    pad: get('PadV2'),
    slice: get('Slice'),
    reshape: get('Reshape'),
    multiply: get('Multiply'),
    sum: get('Sum'),
  };
  const added: string[] = [];
  if (missing.includes('Conv2DBackpropFilter')) {
    added.push('Conv2DBackpropFilter');
    tf.registerKernel({
      kernelName: 'Conv2DBackpropFilter',
      backendName: 'wasm',
      kernelFunc: ({ inputs, backend, attrs }) => {
        const { x, dy } = inputs as { x: TensorInfo; dy: TensorInfo };
        const a = attrs as unknown as ConvAttrs & { filterShape: [number, number, number, number] };
        return conv2dBackpropFilter(tf, k, backend, x, dy, a.filterShape, a);
      },
    });
  }
  // The two depthwise kernels are added together: they share the block-diagonal construction.
  if (missing.includes('DepthwiseConv2dNativeBackpropFilter') && missing.includes('DepthwiseConv2dNativeBackpropInput')) {
    added.push('DepthwiseConv2dNativeBackpropFilter', 'DepthwiseConv2dNativeBackpropInput');
    registerDepthwise(tf, k);
  }
  return added;
}
