import { checkOptionKeys } from '@dftracer/core';
import type { DeviceTimeMode } from '@dftracer/tfjs';
import { checkDeviceTimeMode } from '@dftracer/tfjs/internal';
import { createBackend, DynamoBackend, type BackendOptions } from './backend.js';
import type { Graph } from './graph.js';
import { isLayersModel, wrapLayers, type LayersModelLike } from './layers.js';
import { compiledState, runtime } from './runtime.js';

export type AnyFunction = (this: any, ...args: any[]) => any;

/** A function that receives each captured graph: torch.compile's custom backend `(gm, inputs) => …`. */
export type CustomBackend = (graph: Graph) => void;

export interface CompileOptions {
  /** A backend from `createBackend`, its options, or a custom backend function. Default: the shared `dynamo` backend. */
  backend?: DynamoBackend | BackendOptions | CustomBackend;
  /** Device time of this compiled function's kernels; default: the backend's `deviceTime`. */
  deviceTime?: DeviceTimeMode;
}

/** `compile` in all its forms: on a function or model, as a method decorator, or with options first. */
export interface CompileFn {
  <T extends AnyFunction>(fn: T, options?: CompileOptions): T;
  <M extends LayersModelLike>(model: M, options?: CompileOptions): M;
  <T extends AnyFunction>(method: T, context: ClassMethodDecoratorContext): T;
  (options: CompileOptions): <T extends AnyFunction | LayersModelLike>(target: T, context?: ClassMethodDecoratorContext) => T;
}

function isDecoratorContext(v: unknown): v is ClassMethodDecoratorContext {
  const c = v as Partial<ClassMethodDecoratorContext> | null;
  return c !== null && typeof c === 'object' && typeof c.kind === 'string' && 'name' in c;
}

const COMPILE_KEYS = ['backend', 'deviceTime'];

/** A misspelt option (`backnd`) would silently trace with the default backend: say so instead. */
function checkCompileOptions(o: object): CompileOptions {
  checkOptionKeys('compile', o, COMPILE_KEYS);
  return o as CompileOptions;
}

function toBackend(b: CompileOptions['backend'], fallback: () => DynamoBackend): DynamoBackend {
  if (b === undefined) return fallback();
  if (b instanceof DynamoBackend) return b;
  if (typeof b === 'function') return createBackend({ name: b.name || 'dynamo', onGraph: b });
  if (b !== null && typeof b === 'object') return createBackend(b);
  throw new TypeError(`compile: options.backend must be a backend from createBackend, its options or a function; got ${String(b)}`);
}

/** Parameter names of a function from its source, for placeholder names (`x`), else `arg<i>`. */
function argNames(fn: AnyFunction): string[] {
  try {
    const src = Function.prototype.toString.call(fn);
    const m = /^[^(]*\(([^)]*)\)/.exec(src) ?? /^\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(src);
    if (m === null) return [];
    return m[1]!.split(',').map((p, i) => {
      const name = p.trim().replace(/^\.\.\./, '').split(/[=:\s]/)[0]!;
      return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `arg${i}`;
    });
  } catch {
    return [];
  }
}

function compileFunction<T extends AnyFunction>(fn: T, backend: DynamoBackend, name: string, deviceTime: DeviceTimeMode): T {
  const state = compiledState(name, backend, deviceTime, argNames(fn));
  const rt = runtime();
  const compiled = function (this: unknown, ...args: unknown[]) {
    return rt.call(state, fn, this, args);
  };
  Object.defineProperty(compiled, 'name', { value: fn.name, configurable: true });
  Object.defineProperty(compiled, 'length', { value: fn.length, configurable: true });
  return compiled as T;
}

const MODEL_METHODS = ['predict', 'apply', 'call'] as const;

/** A model-like view of a LayersModel whose predict/apply/call are compiled calls; the rest is the model's own. */
function compileModel<M extends LayersModelLike>(model: M, backend: DynamoBackend, deviceTime: DeviceTimeMode): M {
  const rt = runtime();
  const traced: Record<string, AnyFunction> = {};
  for (const m of MODEL_METHODS) {
    const original = model[m] as AnyFunction;
    const state = compiledState(`${model.name}.${m}`, backend, deviceTime, ['x', 'options']);
    // Layers are wrapped only for calls that trace or capture, and unwrapped when the hooks go.
    const prepare = () => wrapLayers(model);
    traced[m] = function (this: unknown, ...args: unknown[]) {
      return rt.call(state, original, model, args, prepare);
    };
    Object.defineProperty(traced[m], 'name', { value: m, configurable: true });
  }
  return new Proxy(model, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in traced) return traced[prop];
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as AnyFunction).bind(target) : v;
    },
  });
}

function compileTarget<T>(target: T, backend: DynamoBackend, name?: string, deviceTime?: unknown): T {
  if (!backend.enable) return target;
  const mode = deviceTime === undefined ? backend.deviceTime : checkDeviceTimeMode(deviceTime, 'compile');
  // A mode the active backend cannot honour fails here, not inside the user's first call.
  runtime().checkDeviceTime(mode, 'compile');
  if (isLayersModel(target)) return compileModel(target, backend, mode) as T;
  if (typeof target === 'function') return compileFunction(target as AnyFunction, backend, name ?? (target.name || 'fn'), mode) as T;
  throw new TypeError(`compile: expects a function or a tfjs LayersModel; got ${target === null ? 'null' : typeof target}`);
}

/** Builds a `compile` bound to a default backend (the shared one, or a Dynamo instance's). */
export function makeCompile(defaultBackend: () => DynamoBackend): CompileFn {
  function compile(a: unknown, b?: unknown): unknown {
    if (typeof a === 'function' && isDecoratorContext(b)) {
      if (b.kind !== 'method') throw new TypeError(`compile: as a decorator it goes on methods; got a ${b.kind}`);
      return compileTarget(a, defaultBackend(), String(b.name));
    }
    if (typeof a === 'function' || isLayersModel(a)) {
      if (b !== undefined && (b === null || typeof b !== 'object')) throw new TypeError(`compile: the second argument must be options like { backend }; got ${String(b)}`);
      const o = b === undefined ? undefined : checkCompileOptions(b);
      return compileTarget(a, toBackend(o?.backend, defaultBackend), undefined, o?.deviceTime);
    }
    if (a !== null && typeof a === 'object' && b === undefined) {
      const o = checkCompileOptions(a);
      const backend = toBackend(o.backend, defaultBackend);
      const deviceTime = o.deviceTime;
      return (target: unknown, context?: unknown) => compileTarget(target, backend, isDecoratorContext(context) ? String(context.name) : undefined, deviceTime);
    }
    throw new TypeError(`compile: expects a function, a tfjs LayersModel or options like { backend }; got ${a === null ? 'null' : typeof a}`);
  }
  return compile as CompileFn;
}

let shared: DynamoBackend | null = null;

/** The backend of `dynamo.compile` and `compile` without one: name `dynamo`, autograd on. */
export function defaultBackend(): DynamoBackend {
  return (shared ??= createBackend());
}

/**
 * torch.compile for TensorFlow.js: `compile(model, { backend })` returns a model whose
 * predict/apply/call are traced, `compile(fn, { backend })` a traced function, and
 * `@compile` decorates a method.
 */
export const compile: CompileFn = makeCompile(defaultBackend);
