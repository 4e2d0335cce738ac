import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getTracer } from '@dftracer/core';
import { useTf, type UseTfOptions } from './tfjs-hooks.js';
import { registerWasmConvGrad } from './wasm-conv-grad.js';

/** The TensorFlow.js namespace (types from `@tensorflow/tfjs`; tfjs-node re-exports the same API). */
export type Tf = typeof import('@tensorflow/tfjs');

export type TfPackage = '@tensorflow/tfjs-node-gpu' | '@tensorflow/tfjs-node' | '@tensorflow/tfjs';

/** What `loadTf()` got. */
export interface LoadedTf {
  readonly tf: Tf;
  /** The package the namespace came from. */
  readonly package: TfPackage;
  /** The active backend: `tensorflow` (tfjs-node, -gpu), `wasm` or `cpu`. */
  readonly backend: string;
  /** Where kernels run: `cuda` (tfjs-node-gpu on a GPU), `cpu` (libtensorflow, or pure JS), `wasm`. */
  readonly device: 'cuda' | 'cpu' | 'wasm';
  /** Each candidate passed over on the way, with the reason. */
  readonly skipped: readonly { readonly package: string; readonly reason: string }[];
  /** Kernels `loadTf` added to the backend so it can train (wasm: see `registerWasmConvGrad`); empty if none. */
  readonly addedKernels: readonly string[];
}

export interface LoadTfOptions extends UseTfOptions {
  /**
   * Candidates in order; default `['tfjs-node-gpu', 'tfjs-node', 'wasm', 'cpu']`: CUDA first, then
   * libtensorflow on the CPU, then pure tfjs on the wasm backend, then its cpu backend.
   */
  prefer?: readonly ('tfjs-node-gpu' | 'tfjs-node' | 'wasm' | 'cpu')[];
  /** Resolve packages from here (default: this package, then the working directory). */
  from?: string;
  /**
   * When wasm is chosen, add the kernels it lacks to train conv nets (`registerWasmConvGrad`);
   * default `true`. `false` leaves the backend as tfjs ships it.
   */
  wasmTraining?: boolean;
}

const DEFAULT_ORDER = ['tfjs-node-gpu', 'tfjs-node', 'wasm', 'cpu'] as const;

function requirers(from: string | undefined): NodeJS.Require[] {
  const list = [createRequire(join(process.cwd(), 'noop.js'))];
  list.unshift(createRequire(from ?? import.meta.url));
  return list;
}

/** `require` of a package from the first place that has it; the error of the last place if none. */
function load(name: string, from: string | undefined): { mod: unknown; resolved: string } {
  let last: unknown;
  for (const rq of requirers(from)) {
    try {
      const resolved = rq.resolve(name);
      return { mod: rq(name), resolved };
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

function reasonOf(e: unknown): string {
  const m = (e as Error)?.message ?? String(e);
  if ((e as { code?: string })?.code === 'MODULE_NOT_FOUND' && m.includes('Cannot find module')) return 'not installed';
  return m.split('\n')[0]!.slice(0, 300);
}

/**
 * Loads the best TensorFlow.js present: `@tensorflow/tfjs-node-gpu` (CUDA), then
 * `@tensorflow/tfjs-node`, then `@tensorflow/tfjs` on the wasm backend
 * (`@tensorflow/tfjs-backend-wasm`, given the kernels it lacks to train conv nets unless
 * `wasmTraining: false`), then its cpu backend. Reports what it got in a `CM` record (`tfjs`) and
 * at INFO, and hands the namespace to the compute tracers (`useTf`).
 */
export async function loadTf(options: LoadTfOptions = {}): Promise<LoadedTf> {
  const order = options.prefer ?? DEFAULT_ORDER;
  if (!Array.isArray(order) || order.length === 0) throw new TypeError(`loadTf: prefer must be a non-empty array of 'tfjs-node-gpu' | 'tfjs-node' | 'wasm' | 'cpu'`);
  for (const choice of order) packageOf(choice);
  const skipped: { package: string; reason: string }[] = [];
  for (const choice of order) {
    try {
      const got = await tryCandidate(choice, options.from, options.wasmTraining !== false);
      if (got === null) continue;
      const result: LoadedTf = { ...got, skipped };
      report(result);
      useTf(result.tf, options);
      return result;
    } catch (e) {
      skipped.push({ package: packageOf(choice), reason: reasonOf(e) });
    }
  }
  throw new Error(`loadTf: no TensorFlow.js could be loaded (${skipped.map((s) => `${s.package}: ${s.reason}`).join('; ')}); install @tensorflow/tfjs`);
}

function packageOf(choice: string): TfPackage {
  if (choice === 'tfjs-node-gpu') return '@tensorflow/tfjs-node-gpu';
  if (choice === 'tfjs-node') return '@tensorflow/tfjs-node';
  if (choice === 'wasm' || choice === 'cpu') return '@tensorflow/tfjs';
  throw new TypeError(`loadTf: unknown candidate ${JSON.stringify(choice)}; expected 'tfjs-node-gpu', 'tfjs-node', 'wasm' or 'cpu'`);
}

async function tryCandidate(choice: string, from: string | undefined, wasmTraining: boolean): Promise<Omit<LoadedTf, 'skipped'> | null> {
  const pkg = packageOf(choice);
  if (choice === 'tfjs-node-gpu' || choice === 'tfjs-node') {
    checkBinding(pkg, from);
    const tf = load(pkg, from).mod as Tf;
    await tf.ready();
    const backend = tf.getBackend();
    if (backend !== 'tensorflow') throw new Error(`loaded, but the active backend is ${backend}, not tensorflow`);
    // tfjs-node-gpu falls back to the CPU silently when CUDA libraries are missing.
    const gpu = (tf.backend() as { isUsingGpuDevice?: boolean }).isUsingGpuDevice === true;
    if (choice === 'tfjs-node-gpu' && !gpu) throw new Error('loaded, but libtensorflow found no CUDA device (missing CUDA/cuDNN libraries or no GPU)');
    return { tf, package: pkg, backend, device: gpu ? 'cuda' : 'cpu', addedKernels: [] };
  }
  const tf = load(pkg, from).mod as Tf;
  if (choice === 'wasm') {
    const { mod, resolved } = load('@tensorflow/tfjs-backend-wasm', from);
    (mod as { setWasmPaths(p: string): void }).setWasmPaths(dirname(resolved) + '/');
    if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend failed to initialize');
    await tf.ready();
    return { tf, package: pkg, backend: 'wasm', device: 'wasm', addedKernels: wasmTraining ? trainable(tf) : [] };
  }
  if (!(await tf.setBackend('cpu'))) throw new Error('the cpu backend failed to initialize');
  await tf.ready();
  return { tf, package: pkg, backend: 'cpu', device: 'cpu', addedKernels: [] };
}

/** Adds wasm's missing training kernels; a failure costs only training, so it is a warning. */
function trainable(tf: Tf): string[] {
  try {
    return registerWasmConvGrad(tf);
  } catch (e) {
    getTracer()?.log('WARN', `loadTf: could not add the wasm training kernels: ${reasonOf(e)}`);
    return [];
  }
}

/**
 * tfjs-node's install downloads libtensorflow and builds `lib/napi-v*\/tfjs_binding.node`; where
 * that failed the package is present but cannot load, and loading its JS would still register its
 * kernels. Checked first, so such an install is passed over cleanly with the reason.
 */
function checkBinding(pkg: string, from: string | undefined): void {
  let dir: string | undefined;
  for (const rq of requirers(from)) {
    try {
      dir = dirname(rq.resolve(`${pkg}/package.json`));
      break;
    } catch {
      // next place
    }
  }
  if (dir === undefined) throw Object.assign(new Error(`Cannot find module '${pkg}'`), { code: 'MODULE_NOT_FOUND' });
  const lib = join(dir, 'lib');
  const built = existsSync(lib) && readdirSync(lib).some((d) => existsSync(join(lib, d, 'tfjs_binding.node')));
  if (!built) throw new Error('installed, but its native binding was not built (its install downloads libtensorflow, which failed or was skipped)');
}

function report(r: LoadedTf): void {
  const t = getTracer();
  if (t === null) return;
  const version = (r.tf.version as Record<string, string> | undefined)?.['tfjs-core'] ?? '';
  t.metadata('tfjs', { package: r.package, backend: r.backend, device: r.device, version, skipped: r.skipped, added_kernels: r.addedKernels });
  const added = r.addedKernels.length > 0 ? `, added kernels ${r.addedKernels.join(', ')}` : '';
  t.log('INFO', `tfjs: ${r.package} ${version}, backend ${r.backend}, device ${r.device}${added}${r.skipped.length > 0 ? ` (skipped ${r.skipped.map((s) => `${s.package}: ${s.reason}`).join('; ')})` : ''}`);
}
