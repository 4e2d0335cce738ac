import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeAdapter, type AdapterReport } from './adapter.js';
import type { ResolvedWebGPUOptions } from './options.js';

interface GpuLike {
  requestAdapter(options?: Record<string, unknown>): Promise<AdapterLike | null>;
  readonly wgslLanguageFeatures?: unknown;
}
interface AdapterLike {
  readonly info?: Record<string, unknown>;
  readonly features: { has(name: string): boolean };
  requestDevice(descriptor?: { requiredFeatures?: Iterable<unknown> } & Record<string, unknown>): Promise<unknown>;
}
interface DawnModule {
  create(options: string[]): GpuLike;
  globals: Record<string, unknown>;
}

/** The live Dawn instance; held here so it is not collected while tfjs uses it. */
let instance: GpuLike | null = null;
let installed: object | null = null;
let previousNavigator: PropertyDescriptor | undefined;

// The `webgpu` package is ESM only: imported by file URL (esbuild keeps import() in the CJS build).
const importUrl = (url: string): Promise<unknown> => import(url);

async function loadDawn(from: string | undefined): Promise<DawnModule> {
  const places = [from, import.meta.url, join(process.cwd(), 'noop.js')].filter((p): p is string => typeof p === 'string');
  let last: unknown;
  for (const place of places) {
    try {
      const path = createRequire(place).resolve('webgpu');
      return (await importUrl(pathToFileURL(path).href)) as DawnModule;
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

export interface WebGPUSetup {
  readonly adapter: AdapterReport;
}

/**
 * Makes `navigator.gpu` from Dawn's Node bindings (npm `webgpu`) so that
 * `@tensorflow/tfjs-backend-webgpu` registers itself when imported afterwards. Throws when Dawn
 * cannot load or finds no adapter, saying what to install or set.
 */
export async function setupWebGPU(options: ResolvedWebGPUOptions, from?: string): Promise<WebGPUSetup> {
  const dawn = await loadDawn(from);
  Object.assign(globalThis, dawn.globals); // GPUBufferUsage, GPUMapMode, … as in a browser
  const gpu = dawn.create([...options.dawnOptions]);
  const withLevel = (o: Record<string, unknown> = {}) => ({ powerPreference: options.powerPreference, ...o, ...(options.featureLevel === 'compatibility' ? { featureLevel: 'compatibility' } : {}) });
  const adapter = await gpu.requestAdapter(withLevel());
  if (adapter === null || adapter === undefined) {
    throw new Error(
      `Dawn found no WebGPU adapter (dawnOptions ${JSON.stringify(options.dawnOptions)}, featureLevel ${options.featureLevel}); ` +
        'with an NVIDIA GPU libvulkan.so.1 must load and the driver be visible to Vulkan; without a GPU, Mesa through ' +
        "webgpu: { dawnOptions: ['backend=opengles'], featureLevel: 'compatibility' } and EGL_PLATFORM=surfaceless",
    );
  }
  instance = gpu;
  const wrapped = {
    async requestAdapter(o?: Record<string, unknown>) {
      const a = await gpu.requestAdapter(withLevel(o));
      if (a !== null && a !== undefined) {
        // tfjs 4.22 puts ['bgra8unorm-storage'] (an array) inside requiredFeatures; Dawn wants strings.
        const requestDevice = a.requestDevice.bind(a);
        try {
          (a as { requestDevice: AdapterLike['requestDevice'] }).requestDevice = (d = {}) => requestDevice({ ...d, requiredFeatures: [...(d.requiredFeatures ?? [])].flat() });
        } catch {
          // A frozen adapter: tfjs versions without the array quirk still work.
        }
      }
      return a;
    },
    getPreferredCanvasFormat: () => 'rgba8unorm',
    get wgslLanguageFeatures() {
      return gpu.wgslLanguageFeatures;
    },
  };
  installNavigatorGpu(wrapped);
  return { adapter: describeAdapter(adapter) };
}

function installNavigatorGpu(gpu: object): void {
  const g = globalThis as { navigator?: Record<string, unknown> };
  const nav = g.navigator;
  installed = gpu;
  if (nav !== undefined) {
    try {
      Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true, writable: true });
    } catch {
      // Node's own navigator may refuse: replaced below.
    }
  }
  if (g.navigator?.gpu !== gpu) {
    previousNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', {
      value: { gpu, userAgent: (nav?.userAgent as string | undefined) ?? 'node', language: (nav?.language as string | undefined) ?? 'en' },
      configurable: true,
      writable: true,
    });
  }
}

/** Whether `setupWebGPU` installed a Dawn instance that is still held. */
export function webgpuActive(): boolean {
  return instance !== null;
}

/**
 * Lets the process exit by itself: drops the Dawn instance and `navigator.gpu` (a live Dawn
 * instance keeps the event loop running). The tfjs backend holding the device must be removed
 * first (`tf.removeBackend('webgpu')`).
 */
export function releaseWebGPU(): void {
  if (instance === null) return;
  instance = null;
  const g = globalThis as { navigator?: Record<string, unknown> };
  if (previousNavigator !== undefined) {
    Object.defineProperty(globalThis, 'navigator', previousNavigator);
    previousNavigator = undefined;
  } else if (g.navigator?.gpu === installed) {
    try {
      delete g.navigator.gpu;
    } catch {
      // non-configurable: leave it
    }
  }
  installed = null;
}
