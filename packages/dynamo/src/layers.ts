import { warnOnce, type Args } from '@dftracer/core';
import { CAT, message, runtime } from './runtime.js';
import { flattenTensors } from './tensors.js';

/** The parts of a tfjs-layers Layer / LayersModel this package uses. */
export interface LayerLike {
  readonly name: string;
  call(inputs: unknown, kwargs: unknown): unknown;
  getClassName?(): string;
  readonly layers?: readonly LayerLike[];
}

export interface LayersModelLike extends LayerLike {
  predict(x: unknown, args?: unknown): unknown;
  apply(inputs: unknown, kwargs?: unknown): unknown;
  readonly layers: readonly LayerLike[];
}

export function isLayersModel(v: unknown): v is LayersModelLike {
  const m = v as Partial<LayersModelLike> | null;
  return m !== null && typeof m === 'object' && typeof m.predict === 'function' && typeof m.apply === 'function' && Array.isArray(m.layers);
}

function className(layer: LayerLike): string {
  try {
    return layer.getClassName?.() ?? layer.constructor.name;
  } catch {
    return layer.constructor.name;
  }
}

const gradEnabled = () => runtime().gradEnabled();

/**
 * Wraps each layer's `call` (recursing into nested models) so that, inside a compiled call, the
 * layer is a `module.<Class>` span with its kernels nested in it and a call_module graph node.
 * Outside compiled calls the wrapper only forwards. Teardown puts the original `call` back.
 */
export function wrapLayers(model: LayersModelLike): void {
  const rt = runtime();
  if (!rt.claimModel(model)) return;
  const seen = new Set<LayerLike>();
  const visit = (layers: readonly LayerLike[]) => {
    for (const layer of layers) {
      if (seen.has(layer)) continue;
      seen.add(layer);
      wrapLayer(layer);
      if (Array.isArray(layer.layers)) visit(layer.layers);
    }
  };
  visit(model.layers);
}

function wrapLayer(layer: LayerLike): void {
  const rt = runtime();
  const own = Object.prototype.hasOwnProperty.call(layer, 'call');
  const original = layer.call;
  if (typeof original !== 'function' || (original as { dftracerLayer?: boolean }).dftracerLayer) return;
  const cls = className(layer);
  const name = `module.${cls}`;
  // The span's args per grad mode, made once: a layer span then allocates nothing for its args.
  const plainArgs = [0, 1].map((g) => Object.freeze({ op: 'call_module', target: layer.name, grad_enabled: g }) as Args);
  const wrapped = function dftracerLayerCall(this: unknown, inputs: unknown, kwargs: unknown): unknown {
    const f = rt.current();
    if (f === null) return original.call(this, inputs, kwargs);
    const t = f.tracer;
    const grad = gradEnabled();
    const span = t?.enter();
    let outputs: unknown = undefined;
    try {
      f.capture?.enterModule(layer.name, cls, flattenTensors(inputs, 'in').map((x) => x.tensor), grad === 1);
    } catch (e) {
      f.capture = null;
      warnOnce('capture', `dynamo: graph capture stopped (${message(e)}); tracing goes on`);
    }
    try {
      outputs = original.call(this, inputs, kwargs);
      return outputs;
    } finally {
      try {
        f.capture?.exitModule(flattenTensors(outputs, 'out').map((x) => x.tensor));
      } catch (e) {
        f.capture = null;
        warnOnce('capture', `dynamo: graph capture stopped (${message(e)}); tracing goes on`);
      }
      if (t !== null && span !== undefined) {
        const ctx = f.backend.contextArgs;
        t.exit(span, name, CAT, ctx === null ? plainArgs[grad]! : ({ ...plainArgs[grad], ...ctx } as Args));
      }
    }
  };
  (wrapped as { dftracerLayer?: boolean }).dftracerLayer = true;
  (layer as { call: LayerLike['call'] }).call = wrapped;
  rt.onTeardown(() => {
    if (layer.call !== wrapped) return;
    if (own) (layer as { call: LayerLike['call'] }).call = original;
    else delete (layer as Partial<LayerLike>).call;
  });
}
