/**
 * tfjs-backend-wasm 4.22 runs conv nets forward but cannot train them: it has no
 * `Conv2DBackpropFilter` kernel. This registers one built from the wasm backend's own kernels, so
 * training runs on wasm instead of the ~10× slower cpu backend:
 * dW[kh,kw,ci,co] = Σ x[b, oh·s+kh, ow·s+kw, ci] · dy[b,oh,ow,co] is a convolution of x (channels as
 * batch) with dy (batch as input channels), dilated by the stride.
 */
import * as tf from '@tensorflow/tfjs';

type KernelFn = (args: { inputs: Record<string, tf.TensorInfo>; backend: unknown; attrs?: Record<string, unknown> }) => tf.TensorInfo;

function kernel(name: string): KernelFn {
  const k = tf.getKernel(name, 'wasm');
  if (!k) throw new Error(`the wasm backend has no ${name} kernel`);
  return k.kernelFunc as unknown as KernelFn;
}

/** Registers the missing kernel once the wasm backend is registered; a no-op when it exists. */
export function registerWasmConvGrad(): void {
  if (tf.getKernel('Conv2DBackpropFilter', 'wasm')) return;
  const conv2d = kernel('Conv2D');
  const transpose = kernel('Transpose');
  const pad = kernel('PadV2');
  const slice = kernel('Slice');
  tf.registerKernel({
    kernelName: 'Conv2DBackpropFilter',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, dy } = inputs as { x: tf.TensorInfo; dy: tf.TensorInfo };
      const { strides, pad: padding, dataFormat, dimRoundingMode, filterShape } = attrs as unknown as {
        strides: [number, number] | number;
        pad: 'valid' | 'same' | number;
        dataFormat: string;
        dimRoundingMode?: 'floor' | 'round' | 'ceil';
        filterShape: [number, number, number, number];
      };
      if (dataFormat !== 'NHWC') throw new Error(`Conv2DBackpropFilter on wasm: dataFormat ${dataFormat} (only NHWC)`);
      const info = tf.backend_util.computeConv2DInfo(x.shape as [number, number, number, number], filterShape, strides, 1, padding, dimRoundingMode);
      const { top, bottom, left, right } = info.padInfo;
      const temps: tf.TensorInfo[] = [];
      const run = (fn: KernelFn, ins: Record<string, tf.TensorInfo>, at: Record<string, unknown>) => {
        const out = fn({ inputs: ins, backend, attrs: at });
        temps.push(out);
        return out;
      };
      const xp = top || bottom || left || right ? run(pad, { x }, { paddings: [[0, 0], [top, bottom], [left, right], [0, 0]], constantValue: 0 }) : x;
      const xT = run(transpose, { x: xp }, { perm: [3, 1, 2, 0] }); // [ci, H, W, b]
      const dyT = run(transpose, { x: dy }, { perm: [1, 2, 0, 3] }); // [oh, ow, b, co]
      const full = run(conv2d, { x: xT, filter: dyT }, { strides: [1, 1], pad: 'valid', dataFormat: 'NHWC', dilations: [info.strideHeight, info.strideWidth] });
      const [kh, kw, ci, co] = filterShape;
      const cut = run(slice, { x: full }, { begin: [0, 0, 0, 0], size: [ci, kh, kw, co] });
      const dw = transpose({ inputs: { x: cut }, backend, attrs: { perm: [1, 2, 0, 3] } });
      const b = backend as { disposeData(id: object): void };
      for (const t of temps) b.disposeData(t.dataId);
      return dw;
    },
  });
}
