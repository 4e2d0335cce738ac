import type { Args } from '@dftracer/core';
import { checkOptionKeys } from '@dftracer/core';
import type { DeviceTimeMode } from '@dftracer/tfjs';
import { checkDeviceTimeMode } from '@dftracer/tfjs/internal';
import type { Graph } from './graph.js';

/** Where in training a call runs; written into every event of the backend's calls. */
export interface DynamoContext {
  epoch?: number;
  step?: number;
  imageIdx?: number;
  /** One number or a shape such as `[224, 224]`. */
  imageSize?: number | readonly number[];
}

export interface BackendOptions extends DynamoContext {
  /** The tracer's name (a model's name); it prefixes the event of each compiled call. Default `dynamo`. */
  name?: string;
  /** false: `compile` returns the function or model untouched. Default true. */
  enable?: boolean;
  /** true: also trace the backward kernels of tf.grad / variableGrads / optimizer.minimize. Default true. */
  autograd?: boolean;
  /** Called with each newly captured graph, as torch.compile calls a custom backend. */
  onGraph?: (graph: Graph) => void;
  /**
   * Device time of kernels on asynchronous backends (a GPU): `'auto'` (default: GPU timestamps
   * where the device has them), `'timestamp'`, `'sync'` or `'off'`. See `@dftracer/tfjs`.
   */
  deviceTime?: DeviceTimeMode;
}

const OPTION_KEYS = ['name', 'enable', 'autograd', 'onGraph', 'deviceTime', 'epoch', 'step', 'imageIdx', 'imageSize'];
const CONTEXT_KEYS = ['epoch', 'step', 'imageIdx', 'imageSize'];

/** A misspelt option (`epochs`) would silently be dropped from every event: say so instead. */
function checkKeys(o: object, keys: readonly string[], fn: string): void {
  checkOptionKeys(fn, o, keys);
}

function checkCount(v: unknown, what: string): void {
  if (v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v >= 0)) throw new TypeError(`${what} must be a non-negative integer; got ${String(v)}`);
}

function checkContext(c: DynamoContext, fn: string): void {
  checkCount(c.epoch, `${fn}: epoch`);
  checkCount(c.step, `${fn}: step`);
  checkCount(c.imageIdx, `${fn}: imageIdx`);
  const s = c.imageSize;
  if (s !== undefined && !(typeof s === 'number' && s >= 0) && !(Array.isArray(s) && s.every((d) => typeof d === 'number' && d >= 0))) {
    throw new TypeError(`${fn}: imageSize must be a number or an array of numbers; got ${JSON.stringify(s)}`);
  }
}

/**
 * A dftracer graph-compile backend: the options every compiled call of it traces with, and the
 * graphs it captured. Make one with `createBackend` and pass it to `compile`.
 */
export class DynamoBackend {
  readonly name: string;
  readonly enable: boolean;
  readonly autograd: boolean;
  readonly deviceTime: DeviceTimeMode;
  private readonly captured: Graph[] = [];
  private readonly onGraph: ((graph: Graph) => void) | undefined;
  private context: DynamoContext = {};
  /** The context as event args (`epoch`, `step`, `image_idx`, `image_size`); null when none is set. */
  contextArgs: Args | null = null;

  constructor(options: BackendOptions = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError(`createBackend: options must be an object; got ${String(options)}`);
    checkKeys(options, OPTION_KEYS, 'createBackend');
    const { name = 'dynamo', enable = true, autograd = true, onGraph } = options;
    if (typeof name !== 'string' || name === '') throw new TypeError(`createBackend: name must be a non-empty string; got ${String(name)}`);
    if (typeof enable !== 'boolean') throw new TypeError(`createBackend: enable must be a boolean; got ${String(enable)}`);
    if (typeof autograd !== 'boolean') throw new TypeError(`createBackend: autograd must be a boolean; got ${String(autograd)}`);
    if (onGraph !== undefined && typeof onGraph !== 'function') throw new TypeError(`createBackend: onGraph must be a function; got ${typeof onGraph}`);
    this.name = name;
    this.enable = enable;
    this.autograd = autograd;
    this.onGraph = onGraph;
    this.deviceTime = checkDeviceTimeMode(options.deviceTime, 'createBackend');
    this.update(options, 'createBackend');
  }

  get epoch(): number | undefined {
    return this.context.epoch;
  }
  get step(): number | undefined {
    return this.context.step;
  }
  get imageIdx(): number | undefined {
    return this.context.imageIdx;
  }
  get imageSize(): number | readonly number[] | undefined {
    return this.context.imageSize;
  }

  /** Every graph captured by this backend's compiled calls, in capture order. */
  get graphs(): readonly Graph[] {
    return this.captured;
  }

  /** Sets the epoch/step/image of the following calls (a field left out keeps its value). */
  update(context: DynamoContext, fn = 'update'): this {
    if (context === null || typeof context !== 'object') throw new TypeError(`${fn}: expects an object like { epoch, step }; got ${String(context)}`);
    if (fn === 'update') checkKeys(context, CONTEXT_KEYS, fn);
    checkContext(context, fn);
    const c: DynamoContext = { ...this.context };
    for (const k of ['epoch', 'step', 'imageIdx', 'imageSize'] as const) if (context[k] !== undefined) (c as Record<string, unknown>)[k] = context[k];
    this.context = c;
    const args: Record<string, unknown> = {};
    if (c.epoch !== undefined) args.epoch = c.epoch;
    if (c.step !== undefined) args.step = c.step;
    if (c.imageIdx !== undefined) args.image_idx = c.imageIdx;
    if (c.imageSize !== undefined) args.image_size = c.imageSize;
    this.contextArgs = Object.keys(args).length > 0 ? (args as Args) : null;
    return this;
  }

  /** Records a new graph (from a compiled call) and hands it to `onGraph`. */
  addGraph(make: (index: number) => Graph): Graph {
    const g = make(this.captured.length);
    this.captured.push(g);
    this.onGraph?.(g);
    return g;
  }
}

/** torch.compile's `backend=`: pydftracer's `create_backend(name, epoch, step, image_idx, image_size, enable, autograd)`. */
export function createBackend(options: BackendOptions = {}): DynamoBackend {
  return new DynamoBackend(options);
}
