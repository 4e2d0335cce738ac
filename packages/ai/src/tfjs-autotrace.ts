import { createRequire } from 'node:module';
import type { Plugin, Region, Tracer } from '@dftracer/core';
import { checkOptionKeys } from '@dftracer/core';
import { currentTf, trackTfjsMemory, type Tf, type TfMemoryLike } from '@dftracer/tfjs';
import { ai } from './taxonomy.js';

export interface TfjsAutoTraceOptions {
  /** The tfjs namespace to trace; default the one handed over (`loadTf()`, `useTf`, `useTfNamespace`). */
  tf?: Tf;
}

type AnyFn = (...args: any[]) => any;
type Patch = { readonly obj: Record<string, unknown>; readonly key: string; readonly orig: unknown; readonly wrapped: unknown };
type LazyIterator = { next(): Promise<{ done: boolean; value: unknown }> };
type Dataset = { iterator(): Promise<LazyIterator> };

const TRACED = Symbol('dftracer.ai.traced');
/** Whether a tfjsAutoTrace plugin is set up; wrappers left on datasets call straight through when not. */
let live = 0;

/**
 * A plugin that traces an unmodified TensorFlow.js program: `LayersModel.fit`/`fitDataset` →
 * `pipeline.train` with `pipeline.epoch` and `compute.step` inside (args epoch/step, also set on
 * the whole `ai` tree as `ai.update` would), `evaluate`/`evaluateDataset` → `pipeline.evaluate`,
 * `predict` → `compute.forward`, `trainOnBatch` → `compute.step`, batches pulled from a `tf.data`
 * dataset by those calls (and by `forEachAsync`/`toArray`) → `dataloader.fetch`, `model.save` →
 * `checkpoint.capture`, `tf.loadLayersModel` → `checkpoint.restart`; and the `tfjs` `memory` counter
 * (tensor counts, the summary's leak verdict). All removed at teardown.
 */
export function tfjsAutoTrace(options: TfjsAutoTraceOptions = {}): Plugin {
  if (options === null || typeof options !== 'object') throw new TypeError(`tfjsAutoTrace: options must be an object like { tf }; got ${String(options)}`);
  checkOptionKeys('tfjsAutoTrace', options, ['tf']);
  const given = options.tf as { LayersModel?: unknown; data?: unknown } | undefined;
  if (given !== undefined && (given === null || typeof given !== 'object' || typeof given.LayersModel !== 'function')) {
    throw new TypeError('tfjsAutoTrace: tf must be the TensorFlow.js namespace (import * as tf from "@tensorflow/tfjs"), with LayersModel');
  }
  return {
    name: 'ai.tfjs',
    setup(tracer) {
      const tf = options.tf ?? currentTf();
      if (tf === undefined) {
        tracer.log('WARN', 'tfjsAutoTrace: no tfjs namespace (pass { tf } or call loadTf() first); nothing traced');
        return;
      }
      const patches = install(tf, tracer);
      // Its tensor counts beside the events (the summary's leak verdict), one sampler per engine.
      const untrack = trackTfjsMemory(tf as unknown as TfMemoryLike);
      live++;
      return () => {
        live--;
        untrack();
        for (const p of patches.reverse()) if (p.obj[p.key] === p.wrapped) p.obj[p.key] = p.orig;
      };
    },
  };
}

function install(tf: Tf, tracer: Tracer): Patch[] {
  const patches: Patch[] = [];
  const patch = (obj: object, key: string, make: (orig: AnyFn) => AnyFn): void => {
    const o = obj as Record<string, unknown>;
    const orig = o[key];
    if (typeof orig !== 'function') {
      tracer.log('WARN', `tfjsAutoTrace: ${key} not found on this tfjs; not traced`);
      return;
    }
    const wrapped = make(orig as AnyFn);
    o[key] = wrapped;
    patches.push({ obj: o, key, orig, wrapped });
  };
  const model = (tf.LayersModel as unknown as { prototype: object }).prototype;
  const Base = Object.getPrototypeOf((tf.CustomCallback as unknown as { prototype: object }).prototype).constructor as new (...a: any[]) => object;

  // fit(x, y, args) and fitDataset(dataset, args): the train span, epochs and steps from callbacks.
  patch(model, 'fit', (orig) =>
    ai.pipeline.train.instrument.wrap(async function fit(this: unknown, ...a: any[]) {
      a[2] = withCallbacks(tf, Base, a[2]);
      return orig.apply(this, a);
    }),
  );
  patch(model, 'fitDataset', (orig) =>
    ai.pipeline.train.instrument.wrap(async function fitDataset(this: unknown, ...a: any[]) {
      a[0] = traceDataset(a[0]);
      a[1] = withCallbacks(tf, Base, a[1]);
      return orig.apply(this, a);
    }),
  );
  patch(model, 'evaluate', (orig) => ai.pipeline.evaluate.instrument.wrap(orig));
  patch(model, 'evaluateDataset', (orig) =>
    ai.pipeline.evaluate.instrument.wrap(async function evaluateDataset(this: unknown, ...a: any[]) {
      a[0] = traceDataset(a[0]);
      return orig.apply(this, a);
    }),
  );
  patch(model, 'predict', (orig) => ai.compute.forward.instrument.wrap(orig));
  patch(model, 'trainOnBatch', (orig) =>
    ai.compute.step.instrument.wrap(async function trainOnBatch(this: unknown, ...a: any[]) {
      return orig.apply(this, a);
    }),
  );
  patch(model, 'save', (orig) =>
    ai.checkpoint.capture.instrument.wrap(async function save(this: unknown, ...a: any[]) {
      return orig.apply(this, a);
    }),
  );
  const dataset = (tf.data as unknown as { Dataset?: { prototype: object } }).Dataset?.prototype;
  if (dataset !== undefined) {
    for (const key of ['forEachAsync', 'toArray']) {
      patch(dataset, key, (orig) =>
        function (this: Dataset, ...a: unknown[]) {
          return orig.apply(live > 0 ? traceDataset(this) : this, a);
        },
      );
    }
  }
  const layers = layersModule(tf);
  if (layers !== null) {
    patch(layers, 'loadLayersModel', (orig) =>
      ai.checkpoint.restart.instrument.wrap(async function loadLayersModel(...a: unknown[]) {
        return orig(...a);
      }),
    );
  } else tracer.log('INFO', 'tfjsAutoTrace: the tfjs-layers module was not found; tf.loadLayersModel is not traced');
  return patches;
}

/**
 * The CommonJS module whose `loadLayersModel` the namespace reads: tfjs re-exports it through a
 * getter, so patching the source module reaches `tf.loadLayersModel` of `require` and of ESM
 * imports made after setup (an ESM namespace taken before keeps the original).
 */
function layersModule(tf: Tf): Record<string, unknown> | null {
  const want = tf.loadLayersModel;
  try {
    const cache = createRequire(import.meta.url).cache;
    for (const m of Object.values(cache)) {
      const ex = m?.exports as Record<string, unknown> | undefined;
      if (ex === undefined || ex === null || ex.loadLayersModel !== want || ex.LayersModel !== tf.LayersModel) continue;
      const d = Object.getOwnPropertyDescriptor(ex, 'loadLayersModel');
      if (d?.writable === true) return ex;
    }
  } catch {
    // no CommonJS cache (a bundle): not traced
  }
  return null;
}

/** fit's config with our callback first: epoch and step regions, epoch/step on the whole tree. */
function withCallbacks(tf: Tf, Base: new (...a: any[]) => object, cfg: unknown): Record<string, unknown> {
  const c: Record<string, unknown> = { ...(cfg as Record<string, unknown> | undefined) };
  let epochRegion: Region | null = null;
  let stepRegion: Region | null = null;
  const ours = new tf.CustomCallback({
    // fit runs epochs and batches one after another: each region stands in for fit's span as
    // the parent of what fit does next (a callback's frame cannot be fit's async context)
    onEpochBegin: async (epoch: number) => {
      ai.update({ epoch, step: 0 });
      epochRegion = ai.pipeline.epoch.instrument.start({ context: true });
    },
    onBatchBegin: async (batch: number) => {
      ai.update({ step: batch });
      stepRegion = ai.compute.step.instrument.start({ context: true });
    },
    onBatchEnd: async () => {
      stepRegion?.stop();
      stepRegion = null;
    },
    onEpochEnd: async () => {
      stepRegion?.stop();
      epochRegion?.stop();
      epochRegion = null;
    },
  });
  const user = c.callbacks == null ? [] : Array.isArray(c.callbacks) ? c.callbacks : [c.callbacks];
  // tfjs takes a list as is only when its first element is a callback object: convert the user's configs.
  c.callbacks = [ours, ...user.map((u: unknown) => (u instanceof Base ? u : new tf.CustomCallback(u as never, c.yieldEvery as never)))];
  return c;
}

/**
 * Makes each batch this dataset's iterators produce a `dataloader.fetch` event (the wait for it),
 * with what the pipeline does meanwhile (file reads) nested under it. Returns the dataset.
 */
export function traceDataset<D>(ds: D): D {
  const d = ds as unknown as Dataset & { [TRACED]?: true };
  if (d === null || typeof d !== 'object' || typeof d.iterator !== 'function') throw new TypeError('traceDataset: expected a tf.data.Dataset');
  if (d[TRACED] === true) return ds;
  const orig = d.iterator;
  Object.defineProperty(d, 'iterator', {
    value: async function iterator(this: Dataset) {
      const it = await orig.call(this);
      return live > 0 ? traceIterator(it) : it;
    },
    configurable: true,
    writable: true,
  });
  Object.defineProperty(d, TRACED, { value: true });
  return ds;
}

function traceIterator(it: LazyIterator): LazyIterator {
  const next = it.next;
  const fetch = ai.dataloader.fetch.instrument;
  it.next = function tracedNext(this: LazyIterator) {
    if (live === 0) return next.call(this);
    // The end of the iterator is no fetch: its span is dropped.
    return fetch.run(() => next.call(this), undefined, (r) => !r.done);
  };
  return it;
}
