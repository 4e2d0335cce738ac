import { addPlugin } from '@dftracer/core';
import type { Tf } from '../tf.js';
import { requireFrom, requirers } from '../resolve.js';
import { adapterText } from '../webgpu/adapter.js';
import { releaseDawn, setupWebGPU, webgpuActive } from '../webgpu/dawn.js';
import { resolveWebGPUOptions, type WebGPUOptions } from '../webgpu/options.js';
import type { Candidate, CandidateContext } from './candidate.js';
import { checkOptionKeys } from '@dftracer/core';

/** loadTf's `webgpu` option: how Dawn reaches the GPU, and how to import the backend in a bundle. */
export interface WebGPULoadOptions extends WebGPUOptions {
  /**
   * Imports `@tensorflow/tfjs-backend-webgpu` (default: required from the install). A bundled
   * program passes `() => import('@tensorflow/tfjs-backend-webgpu')`: loadTf calls it once
   * `navigator.gpu` exists, which the backend needs to register itself.
   */
  importBackend?: () => Promise<unknown>;
}

const WEBGPU_KEYS = ['dawnOptions', 'featureLevel', 'powerPreference', 'importBackend'];

function checkOptions(value: unknown): void {
  resolveWebGPUOptions(value as WebGPUOptions, {});
  checkOptionKeys('loadTf: webgpu', value as object, WEBGPU_KEYS);
  const i = (value as WebGPULoadOptions).importBackend;
  if (i !== undefined && typeof i !== 'function') throw new TypeError(`loadTf: webgpu.importBackend must be a function like () => import('@tensorflow/tfjs-backend-webgpu'); got ${typeof i}`);
}

/** The parts of the tfjs namespace setting WebGPU up takes. */
interface TfForWebGPU {
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  getBackend(): string;
  removeBackend(name: string): void;
  registerBackend(name: string, factory: () => unknown, priority?: number): boolean;
  engine(): { registry: Record<string, unknown>; registryFactory: Record<string, { factory: () => unknown; priority: number } | undefined> };
}

let releaseCurrent: (() => void) | null = null;

/**
 * Sets tfjs up on WebGPU through Dawn: `navigator.gpu` first, then the backend module (it
 * registers itself at import only where `navigator.gpu` exists), then `setBackend('webgpu')`.
 * Software renderers (Mesa llvmpipe, SwiftShader) are passed over unless WebGPU was named in
 * `prefer`. Returns the adapter's description.
 */
async function setUpWebGPU(tf: TfForWebGPU, o: { webgpu?: WebGPULoadOptions; from?: string; explicit: boolean }) {
  const options = resolveWebGPUOptions(o.webgpu);
  const { adapter } = await setupWebGPU(options, o.from);
  try {
    if (adapter.software && !o.explicit) throw new Error(`found only a software renderer (${adapterText(adapter)}); name it to use it: prefer: ['webgpu']`);
    if (o.webgpu?.importBackend !== undefined) await o.webgpu.importBackend();
    else requireFrom('@tensorflow/tfjs-backend-webgpu', requirers(o.from));
    if (tf.engine().registryFactory.webgpu === undefined) {
      throw new Error('@tensorflow/tfjs-backend-webgpu was imported before navigator.gpu existed, so it did not register: let loadTf import it (webgpu.importBackend in a bundle)');
    }
    if (!(await tf.setBackend('webgpu'))) throw new Error('the webgpu backend failed to initialize');
    await tf.ready();
  } catch (e) {
    releaseDawn();
    throw e;
  }
  const release = () => {
    if (releaseCurrent === release) releaseCurrent = null;
    try {
      // The registry, not findBackend: that would start a backend registered but not yet made.
      const b = tf.engine().registry.webgpu as { device?: { destroy?: () => void } } | undefined;
      const registered = tf.engine().registryFactory.webgpu;
      if (b !== null && b !== undefined) {
        tf.removeBackend('webgpu');
        b.device?.destroy?.();
      }
      // The backend module registers itself only once, at import: keep its factory for a later
      // loadTf, below every other backend so that tfjs never picks it by itself without Dawn.
      if (registered !== undefined && tf.engine().registryFactory.webgpu === undefined) tf.registerBackend('webgpu', registered.factory, -1);
    } catch {
      // Already gone.
    }
    if (webgpuActive()) releaseDawn();
  };
  releaseCurrent = release;
  return { adapter, release };
}

/**
 * Removes the WebGPU backend loadTf set up and releases Dawn, whose live instance keeps the event
 * loop running: a program that traces needs nothing (finalize() does it), one that does not calls
 * this when done with tfjs.
 */
export function releaseWebGPU(): void {
  releaseCurrent?.();
}

/** `@tensorflow/tfjs` on `@tensorflow/tfjs-backend-webgpu` through Dawn (npm `webgpu`). */
export const webgpu: Candidate<'@tensorflow/tfjs', 'webgpu'> = {
  package: '@tensorflow/tfjs',
  option: { key: 'webgpu', check: checkOptions },
  async load(ctx: CandidateContext) {
    const given = ctx.options.tf as Tf | undefined;
    const tf = given ?? (requireFrom(this.package, requirers(ctx.from)).mod as Tf);
    const prefer = ctx.options.prefer;
    const explicit = Array.isArray(prefer) && prefer.includes('webgpu');
    const { adapter, release } = await setUpWebGPU(tf as unknown as TfForWebGPU, { webgpu: ctx.options.webgpu as WebGPULoadOptions | undefined, from: ctx.from, explicit });
    // A live Dawn instance keeps the process running: finalize() lets it go.
    addPlugin({ name: 'webgpu', setup: () => release });
    return {
      tf,
      package: this.package,
      backend: 'webgpu',
      device: 'webgpu',
      addedKernels: [],
      info: { adapter: adapterText(adapter), adapter_vendor: adapter.vendor, adapter_device: adapter.device, adapter_description: adapter.description, software: adapter.software, timestamp_query: adapter.timestampQuery },
    };
  },
};
