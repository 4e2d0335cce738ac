import { tensorBytes } from '@dftracer/tfjs/internal';
import type { DeviceType } from './activity.js';
import { callSites, captureStack } from './call-site.js';
import type { ProfilerEvent } from './events.js';

/** What the kernel hook hands over per call (the fields of core's KernelCall this log reads). */
export interface KernelCallView {
  readonly kernelName: string;
  readonly inputs: Readonly<Record<string, TensorInfoView>>;
  readonly outputs: readonly TensorInfoView[];
  readonly start: number;
  readonly end: number;
  readonly gradDepth: number;
  /** The kernel's ticket with the device timer, -1 without one. */
  readonly deviceTicket: number;
}

/** Reads device times by ticket (@dftracer/tfjs's DeviceTimer). */
export interface DeviceTimesView {
  deviceUs(ticket: number): number;
}

export interface TensorInfoView {
  readonly shape: readonly number[];
  readonly dtype: string;
}

/** The engine totals read for memory snapshots (tfjs `engine().state`). */
export interface EngineTotals {
  readonly numBytes: number;
  readonly numTensors: number;
}

export interface LogFlags {
  readonly recordShapes: boolean;
  readonly profileMemory: boolean;
  readonly withStack: boolean;
}

const bytesOf = tensorBytes;

const EMPTY: readonly never[] = Object.freeze([]);

/**
 * The kernels of one cycle in columns (typed arrays, grown by doubling): a recorded kernel costs a
 * few stores, no object; events are built when the cycle is read.
 */
export class KernelLog {
  n = 0;
  private cap = 0;
  private name = new Int32Array(0);
  private backend = new Int32Array(0);
  private device = new Uint8Array(0);
  private step = new Int32Array(0);
  private grad = new Uint8Array(0);
  private start = new Float64Array(0);
  private end = new Float64Array(0);
  private bytes = new Float64Array(0);
  private tensors = new Int32Array(0);
  private totalBytes = new Float64Array(0);
  private totalTensors = new Int32Array(0);
  private ticket = new Float64Array(0);
  /** GPU µs per kernel once `fillDeviceTimes` ran; NaN where unknown. */
  private devUs = new Float64Array(0);
  private deviceTimes = false;
  // Input shapes and dtypes, flat: event i's inputs are [inputAt[i], inputAt[i + 1]).
  private inputAt = new Int32Array(1);
  private readonly shapes: (readonly number[])[] = [];
  private readonly dtypes: string[] = [];
  private readonly stacks: object[] = [];

  constructor(private readonly flags: LogFlags) {
    this.grow(1024);
  }

  private grow(cap: number): void {
    const g = <T extends Int32Array | Uint8Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.set(a);
      return b;
    };
    this.name = g(this.name);
    this.backend = g(this.backend);
    this.device = g(this.device);
    this.step = g(this.step);
    this.grad = g(this.grad);
    this.start = g(this.start);
    this.end = g(this.end);
    this.bytes = g(this.bytes);
    this.tensors = g(this.tensors);
    this.totalBytes = g(this.totalBytes);
    this.totalTensors = g(this.totalTensors);
    this.ticket = g(this.ticket);
    this.devUs = g(this.devUs);
    const at = new Int32Array(cap + 1);
    at.set(this.inputAt);
    this.inputAt = at;
    this.cap = cap;
  }

  record(call: KernelCallView, nameId: number, backendId: number, device: DeviceType, step: number, totals: EngineTotals | null): void {
    const i = this.n;
    if (i === this.cap) this.grow(this.cap * 2);
    this.name[i] = nameId;
    this.backend[i] = backendId;
    this.device[i] = device;
    this.step[i] = step;
    this.grad[i] = call.gradDepth > 0 ? 1 : 0;
    this.ticket[i] = call.deviceTicket;
    // Floored once, as the tracer floors its own times, so nested events never poke out by 1 µs.
    this.start[i] = Math.floor(call.start);
    this.end[i] = Math.floor(call.end);
    const f = this.flags;
    if (f.profileMemory) {
      const outs = call.outputs;
      let b = 0;
      for (let k = 0; k < outs.length; k++) b += bytesOf(outs[k]!);
      this.bytes[i] = b;
      this.tensors[i] = outs.length;
      if (totals !== null) {
        // The hook runs inside the kernel, before the engine tracks its outputs.
        this.totalBytes[i] = totals.numBytes + b;
        this.totalTensors[i] = totals.numTensors + outs.length;
      }
    }
    if (f.recordShapes) {
      // References only: a TensorInfo's shape array is never changed after the kernel made it.
      for (const key in call.inputs) {
        const t = call.inputs[key];
        if (t === undefined || t === null) continue;
        this.shapes.push(t.shape);
        this.dtypes.push(t.dtype);
      }
    }
    this.inputAt[i + 1] = this.shapes.length;
    if (f.withStack) this.stacks[i] = captureStack();
    this.n = i + 1;
  }

  /** The last ticket recorded, -1 when none has one. */
  lastTicket(): number {
    for (let i = this.n - 1; i >= 0; i--) if (this.ticket[i]! >= 0) return this.ticket[i]!;
    return -1;
  }

  /** Reads each kernel's GPU time (after the timer settled the last ticket). */
  fillDeviceTimes(times: DeviceTimesView): void {
    for (let i = 0; i < this.n; i++) {
      const t = this.ticket[i]!;
      const us = t >= 0 ? times.deviceUs(t) : -1;
      this.devUs[i] = us >= 0 ? us : NaN;
    }
    this.deviceTimes = true;
  }

  private inputsOf<T>(flat: readonly T[], i: number): readonly T[] {
    const a = this.inputAt[i]!;
    const b = this.inputAt[i + 1]!;
    return a === b ? EMPTY : flat.slice(a, b);
  }

  /** The recorded kernels as events, in recording order. */
  events(names: readonly string[], backends: readonly string[]): ProfilerEvent[] {
    const out: ProfilerEvent[] = new Array(this.n);
    for (let i = 0; i < this.n; i++) {
      const s = this.stacks[i];
      const dev = this.devUs[i]!;
      out[i] = {
        ...(this.deviceTimes && dev === dev ? { deviceTime: Math.round(dev) } : {}),
        name: names[this.name[i]!]!,
        kind: 'kernel',
        device: this.device[i]! as DeviceType,
        backend: backends[this.backend[i]!]!,
        start: this.start[i]!,
        duration: this.end[i]! - this.start[i]!,
        step: this.step[i]!,
        gradEnabled: this.grad[i] === 1,
        inputShapes: this.inputsOf(this.shapes, i),
        inputDtypes: this.inputsOf(this.dtypes, i),
        bytesAdded: this.bytes[i]!,
        tensorsAdded: this.tensors[i]!,
        totalBytes: this.totalBytes[i]!,
        totalTensors: this.totalTensors[i]!,
        stack: s === undefined ? EMPTY : callSites(s),
      };
    }
    return out;
  }
}
