import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requirers, resolveFirst } from '../resolve.js';
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
  const { resolved } = resolveFirst('webgpu', requirers(from));
  return (await importUrl(pathToFileURL(resolved).href)) as DawnModule;
}

const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/lib64', '/lib', '/usr/local/lib'];

function vulkanLoaderPresent(): boolean {
  const dirs = [...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter((d) => d !== ''), ...LIB_DIRS];
  return dirs.some((d) => existsSync(join(d, 'libvulkan.so.1')));
}

/**
 * Dawn rounds GPU timestamps to 2^16 ns unless told not to (a browser's defence against timing
 * attacks): kernels shorter than that would read 0. Added to the user's options, merged into a
 * `disable-dawn-features=` they gave (Dawn keeps one value per option), unless they name it.
 */
export function unquantized(dawnOptions: readonly string[]): string[] {
  const out = [...dawnOptions];
  if (out.some((o) => o.includes('timestamp_quantization'))) return out;
  const i = out.findIndex((o) => o.startsWith('disable-dawn-features='));
  if (i >= 0) out[i] = `${out[i]},timestamp_quantization`;
  else out.push('disable-dawn-features=timestamp_quantization');
  return out;
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
  // Dawn reaches a Linux GPU through Vulkan; without its loader Dawn would only print a warning.
  if (process.platform === 'linux' && !options.dawnOptions.some((o) => o.startsWith('backend=')) && !vulkanLoaderPresent()) {
    throw new Error('no Vulkan loader (libvulkan.so.1) on this machine: Dawn reaches a GPU through it (Debian/Ubuntu: libvulkan1)');
  }
  const dawn = await loadDawn(from);
  Object.assign(globalThis, dawn.globals); // GPUBufferUsage, GPUMapMode, … as in a browser
  const gpu = dawn.create(unquantized(options.dawnOptions));
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
export function releaseDawn(): void {
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
