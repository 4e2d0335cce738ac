import { createRequire } from 'node:module';
import { join } from 'node:path';
import { adapterText, type AdapterReport } from '../webgpu/adapter.js';
import { releaseWebGPU, setupWebGPU, webgpuActive } from '../webgpu/dawn.js';
import { resolveWebGPUOptions, type WebGPUOptions } from '../webgpu/options.js';

/** The parts of the tfjs namespace the WebGPU candidate uses. */
interface TfForWebGPU {
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  getBackend(): string;
  findBackend(name: string): unknown;
  removeBackend(name: string): void;
  engine(): { registryFactory: Record<string, unknown> };
}

export interface WebGPUCandidateOptions {
  readonly webgpu?: WebGPUOptions;
  /** How to import `@tensorflow/tfjs-backend-webgpu` (bundled programs pass `() => import(…)`). */
  readonly webgpuBackend?: () => Promise<unknown>;
  readonly from?: string;
  /** The user named `webgpu` in `prefer`: a software renderer is then accepted. */
  readonly explicit: boolean;
}

export interface WebGPUCandidate {
  readonly adapter: AdapterReport;
  /** Removes the backend and releases Dawn so that the process can exit (run at finalize). */
  readonly release: () => void;
}

function requireBackend(from: string | undefined): unknown {
  let last: unknown;
  for (const place of [from, import.meta.url, join(process.cwd(), 'noop.js')]) {
    if (place === undefined) continue;
    try {
      return createRequire(place)('@tensorflow/tfjs-backend-webgpu');
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

/**
 * Sets tfjs up on WebGPU through Dawn: `navigator.gpu` first, then the backend module (it
 * registers itself at import only where `navigator.gpu` exists), then `setBackend('webgpu')`.
 * Software renderers are passed over unless WebGPU was asked for by name.
 */
export async function setUpWebGPU(tf: TfForWebGPU, o: WebGPUCandidateOptions): Promise<WebGPUCandidate> {
  const options = resolveWebGPUOptions(o.webgpu);
  const { adapter } = await setupWebGPU(options, o.from);
  try {
    if (adapter.software && !o.explicit) {
      throw new Error(`found only a software renderer (${adapterText(adapter)}); name it to use it: prefer: ['webgpu']`);
    }
    if (o.webgpuBackend !== undefined) await o.webgpuBackend();
    else requireBackend(o.from);
    if (tf.engine().registryFactory.webgpu === undefined) {
      throw new Error('@tensorflow/tfjs-backend-webgpu was imported before navigator.gpu existed, so it did not register: let loadTf import it');
    }
    if (!(await tf.setBackend('webgpu'))) throw new Error('the webgpu backend failed to initialize');
    await tf.ready();
  } catch (e) {
    releaseWebGPU();
    throw e;
  }
  const release = () => {
    try {
      const b = tf.findBackend('webgpu') as { device?: { destroy?: () => void } } | null;
      if (tf.getBackend() === 'webgpu' || b !== null) tf.removeBackend('webgpu');
      b?.device?.destroy?.();
    } catch {
      // Already gone.
    }
    if (webgpuActive()) releaseWebGPU();
  };
  return { adapter, release };
}
