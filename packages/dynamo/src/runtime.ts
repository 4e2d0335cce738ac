import { addPlugin, getTracer, warnOnce, type ArgValue, type Args, type EventShape, type Tracer } from '@dftracer/core';
import type { DeviceTimeMode } from '@dftracer/tfjs';
import { backendFacts, decideDeviceTime, resolveTf, startDeviceTiming, subscribeKernels, syncKernels, type DeviceTiming, type KernelCall, type KernelSubscription, type TensorInfoLike, type TfCoreLike, type TfForDeviceTime } from '@dftracer/tfjs/internal';
import type { DynamoBackend } from './backend.js';
import { GraphCapture } from './capture.js';
import { Graph } from './graph.js';
import { flattenTensors, inputSignature, TypesMemo } from './tensors.js';

export const CAT = 'dynamo';

/** One compiled call in progress. */
export interface Frame {
  readonly backend: DynamoBackend;
  readonly tracer: Tracer | null;
  capture: GraphCapture | null;
  /** The hub was subscribed for this call only (no tracer: capture alone). */
  readonly temporary: boolean;
  /** Device timing of this call's kernels (null without a tracer). */
  readonly timing: DeviceTiming | null;
}

/** What the kernel listener keeps per kernel name: its event shape and its last types texts. */
interface KernelSlot {
  readonly shape: EventShape;
  readonly inputs: TypesMemo;
  readonly outputs: TypesMemo;
}

/** What a compiled function remembers between calls: its guards and the graphs seen for each. */
export interface CompiledState {
  readonly name: string;
  readonly backend: DynamoBackend;
  readonly deviceTime: DeviceTimeMode;
  /** Placeholder names for the call's tensor arguments, by position. */
  readonly argNames: readonly string[];
  readonly guards: Map<string, { readonly fingerprints: Set<string>; dynamic: boolean }>;
  /** The call's event name, `<backend>.<name>`, made once. */
  readonly eventName: string;
  /** The call event's args per grad mode (0, 1), made once: a call allocates none without a context. */
  readonly callArgs: readonly [Args, Args];
}

/** What `compile` keeps for one compiled function or model method. */
export function compiledState(name: string, backend: DynamoBackend, deviceTime: DeviceTimeMode, argNames: readonly string[]): CompiledState {
  const args = (g: 0 | 1) => Object.freeze({ op: 'call', target: name, grad_enabled: g }) as Args;
  return { name, backend, deviceTime, argNames, guards: new Map(), eventName: `${backend.name}.${name}`, callArgs: [args(0), args(1)] };
}

interface EngineState {
  readonly gradientDepth: number;
  readonly activeTape?: unknown;
  readonly registeredVariables?: Readonly<Record<string, TensorInfoLike | undefined>>;
}

type Reads = Record<'read' | 'readSync', (dataId: object) => unknown>;
type Engine = { state: EngineState; backendName: string } & Reads;

const message = (e: unknown) => (e as Error)?.message ?? String(e);

/** The object on `o`'s prototype chain (or `o`) that holds the property `key` itself, or null. */
function ownerOf(o: object, key: string): Reads | null {
  for (let p: object | null = o; p !== null; p = Object.getPrototypeOf(p) as object | null) {
    if (Object.prototype.hasOwnProperty.call(p, key)) return p as Reads;
  }
  return null;
}

/**
 * The tfjs module compiled calls run on (@dftracer/tfjs's resolveTf: the namespace handed over,
 * else the installed tfjs-core), or null, said once, when there is none: the call then runs untraced.
 */
function tfjs(): TfCoreLike | null {
  try {
    return resolveTf(undefined, 'dynamo') as unknown as TfCoreLike;
  } catch (e) {
    warnOnce('dynamo:tfjs', `${message(e)}; compiled functions run untraced`);
    return null;
  }
}

/**
 * The process's dynamo hooks: one kernel-hub subscription (kept while a tracer runs, torn down
 * at its finalize), a stack of compiled calls in progress, and the graph captures.
 */
class Runtime {
  private readonly frames: Frame[] = [];
  private top: Frame | null = null;
  /** The kernel-hub subscription: it wants kernels only inside compiled calls and while their tape's backward pass may come. */
  private unsubscribe: KernelSubscription | null = null;
  /** The tracer whose teardown unhooks us. */
  private hookedTracer: Tracer | null = null;
  /** By the hub's kernelId: an array index per kernel instead of a map lookup by name. */
  private slots: (KernelSlot | undefined)[] = [];
  private slotsTracer: Tracer | null = null;
  private lastBackend = '';
  /** The gradient tape a compiled call ran on, so its backward kernels are traced after the call. */
  private tape: unknown = null;
  private tapeBackend: DynamoBackend | null = null;
  private tapeTiming: DeviceTiming | null = null;
  /** Device timing per requested mode, for the hooked tracer's lifetime (or until the tfjs backend changes). */
  private readonly timings = new Map<DeviceTimeMode, DeviceTiming>();
  private unpatchReads: (() => void) | null = null;
  private readonly layerRestorers: (() => void)[] = [];
  private wrappedModels = new WeakSet<object>();
  /** The tfjs module of the latest compiled call (set before anything reads the engine). */
  private tf: TfCoreLike | null = null;

  private engine(): Engine {
    return this.tf!.engine() as unknown as Engine;
  }

  /** 1 while a gradient tape records (tf.grad's forward pass), else 0. */
  gradEnabled(): 0 | 1 {
    return this.tf !== null && this.engine().state.gradientDepth > 0 ? 1 : 0;
  }

  // ---------------------------------------------------------------- hooks

  private hook(): void {
    if (this.unsubscribe !== null) return;
    this.unsubscribe = subscribeKernels(this.tf!, this.onKernel);
    this.lastBackend = this.engine().backendName;
    this.patchReads();
  }

  private unhook(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unpatchReads?.();
    this.unpatchReads = null;
    this.tape = null;
    this.tapeBackend = null;
    this.tapeTiming = null;
    this.releaseTimings();
    for (const restore of this.layerRestorers.splice(0)) restore();
    this.wrappedModels = new WeakSet();
  }

  /** Tracer teardown (finalize): kernels, reads and layers go back to what they were. */
  private teardown = (): void => {
    this.unhook();
    this.hookedTracer = null;
  };

  /**
   * A data read inside a compiled call ends the current graph (Dynamo's graph break). The read
   * methods are wrapped where they are defined (the Engine prototype), never added to and deleted
   * from the engine itself: deleting a property V8 did not add last turns the engine into a
   * dictionary-mode object, and every tfjs kernel of the process would run slower from then on.
   */
  private patchReads(): void {
    const eng = this.engine();
    const restores: (() => void)[] = [];
    for (const m of ['readSync', 'read'] as const) {
      const holder = ownerOf(eng, m);
      if (holder === null) continue;
      const original = holder[m];
      if (typeof original !== 'function') continue;
      const rt = this;
      const wrapped = function (this: unknown, dataId: object) {
        const f = rt.top;
        if (f !== null && f.capture !== null) {
          try {
            f.capture.read(dataId);
          } catch (e) {
            f.capture = null;
            warnOnce('capture', `dynamo: graph capture stopped (${message(e)}); tracing goes on`);
          }
        }
        return original.call(this, dataId);
      };
      holder[m] = wrapped;
      restores.push(() => {
        if (holder[m] === wrapped) holder[m] = original;
      });
    }
    this.unpatchReads = () => restores.forEach((r) => r());
  }

  /** Registers a layer's unwrapping for teardown; false when the model's layers are already wrapped. */
  claimModel(model: object): boolean {
    if (this.wrappedModels.has(model)) return false;
    this.wrappedModels.add(model);
    return true;
  }

  onTeardown(restore: () => void): void {
    this.layerRestorers.push(restore);
  }

  // ---------------------------------------------------------------- calls

  private slotFor(t: Tracer, c: KernelCall): KernelSlot {
    if (this.slotsTracer !== t) {
      this.slots = [];
      this.slotsTracer = t;
    }
    const slots = this.slots;
    let s = slots[c.kernelId];
    if (s === undefined) {
      s = { shape: t.shape(`function.${c.kernelName}`, CAT, ['grad_enabled', 'op', 'inputs', 'outputs']), inputs: new TypesMemo(), outputs: new TypesMemo() };
      // Filled up to the id, not assigned past the end: a sparse array would be a slow dictionary.
      while (slots.length <= c.kernelId) slots.push(undefined);
      slots[c.kernelId] = s;
    }
    return s;
  }

  private releaseTimings(): void {
    for (const t of this.timings.values()) t.release();
    this.timings.clear();
  }

  /** A compiled call with timestamps runs, or the backward pass of its tape. */
  private readonly timestampWanted = (): boolean => {
    const f = this.top;
    if (f !== null) return f.timing !== null && f.timing.decision.mode === 'timestamp';
    const tt = this.tapeTiming;
    return tt !== null && tt.decision.mode === 'timestamp' && this.tape !== null && this.tf !== null && this.engine().state.activeTape === this.tape;
  };

  /** Throws where the active tfjs backend cannot honour `mode` (compile time). */
  checkDeviceTime(mode: DeviceTimeMode, where: string): void {
    if (mode !== 'timestamp' && mode !== 'sync') return;
    const tf = tfjs();
    if (tf !== null) decideDeviceTime(mode, backendFacts(tf as unknown as TfForDeviceTime), where);
  }

  private timingFor(mode: DeviceTimeMode): DeviceTiming {
    let t = this.timings.get(mode);
    if (t === undefined) {
      const facts = this.tf as unknown as TfForDeviceTime;
      try {
        t = startDeviceTiming(facts, mode, 'dynamo', this.timestampWanted);
      } catch (e) {
        // The tfjs backend changed since compile(): trace dispatch times rather than fail the call.
        warnOnce(`device-time.${mode}`, `dynamo: ${message(e)}; kernels are traced without device time`);
        t = startDeviceTiming(facts, 'off', 'dynamo');
      }
      this.timings.set(mode, t);
    }
    return t;
  }

  /** The innermost compiled call that needs layer spans or capture, or null. */
  current(): Frame | null {
    const f = this.top;
    return f !== null && (f.tracer !== null || f.capture !== null) ? f : null;
  }

  private begin(backend: DynamoBackend, deviceTime: DeviceTimeMode, capture: GraphCapture | null): Frame {
    const t = getTracer();
    let temporary = false;
    if (t !== null) {
      if (this.hookedTracer !== t) {
        this.hookedTracer = t;
        this.hook();
        // The hooks live as long as the tracer: its finalize takes them out.
        addPlugin({ name: 'dynamo', setup: () => this.teardown });
      }
      // pydftracer's mark_used("dynamo"): a compiled call runs under this tracer.
      t.markUsed('dynamo');
    } else if (capture !== null && this.unsubscribe === null) {
      this.hook();
      temporary = true;
    }
    const eng = this.engine();
    if (this.unsubscribe !== null && eng.backendName !== this.lastBackend) {
      this.lastBackend = eng.backendName;
      syncKernels(this.tf!);
      this.releaseTimings();
    }
    const timing = t !== null ? this.timingFor(deviceTime) : null;
    if (backend.autograd && eng.state.gradientDepth > 0 && t !== null) {
      this.tape = eng.state.activeTape ?? null;
      this.tapeBackend = backend;
      this.tapeTiming = timing;
    }
    const f: Frame = { backend, tracer: t, capture, temporary, timing };
    this.frames.push(f);
    this.top = f;
    this.wantKernels();
    return f;
  }

  /**
   * Kernels outside compiled calls are not traced (but for a tape's backward pass): the hub then
   * runs them without clock reads or listener calls.
   */
  private wantKernels(): void {
    this.unsubscribe?.want(this.frames.length > 0 || this.tape !== null);
  }

  /** The tape a compiled call ran on is done with (its backward pass ran, or it was dropped). */
  private endTape(): void {
    this.tape = null;
    this.tapeBackend = null;
    this.tapeTiming = null;
    this.wantKernels();
  }

  private end(f: Frame): void {
    const frames = this.frames;
    if (frames[frames.length - 1] === f) frames.pop();
    else {
      const i = frames.lastIndexOf(f);
      if (i >= 0) frames.splice(i, 1);
    }
    this.top = frames[frames.length - 1] ?? null;
    if (f.temporary && frames.length === 0 && this.hookedTracer === null) this.unhook();
    else this.wantKernels();
  }

  /** The kernel listener: one event per kernel of a compiled call (and of its backward pass). */
  private onKernel = (c: KernelCall): void => {
    const f = this.top;
    let backend: DynamoBackend;
    let tracer: Tracer | null;
    let timing: DeviceTiming | null;
    if (f !== null) {
      backend = f.backend;
      timing = f.timing;
      if (c.backward && !backend.autograd) return;
      tracer = f.tracer;
      if (f.capture !== null) {
        try {
          f.capture.kernel(c, c.gradDepth > 0 || c.backward);
        } catch (e) {
          f.capture = null;
          warnOnce('capture', `dynamo: graph capture stopped (${message(e)}); tracing goes on`);
        }
      }
    } else {
      // Outside compiled calls: only the backward pass of a tape a compiled call ran on.
      if (this.tape === null) return;
      if (this.engine().state.activeTape !== this.tape) {
        this.endTape();
        return;
      }
      if (!c.backward) return;
      backend = this.tapeBackend!;
      timing = this.tapeTiming;
      tracer = getTracer();
    }
    if (tracer === null) return;
    const ts = Math.floor(c.start);
    const dur = Math.floor(c.end) - ts;
    const grad = c.gradDepth > 0 || c.backward ? 1 : 0;
    const ctx = backend.contextArgs;
    const slot = this.slotFor(tracer, c);
    const inputs = slot.inputs.text(c.inputs);
    const outputs = slot.outputs.text(c.outputs);
    // deviceTicket is -1 unless a device timer runs: the common case reads nothing more.
    if (c.deviceTicket >= 0 && timing !== null && timing.decision.mode === 'timestamp') {
      // Written once the GPU's timestamps are read back, with device_us and a device-track event.
      const span = tracer.reserve(ts);
      const args: Record<string, ArgValue> = { grad_enabled: grad, op: 'call_function', inputs, outputs };
      if (ctx !== null) Object.assign(args, ctx);
      timing.defer(tracer, span, `function.${c.kernelName}`, CAT, args, ts + dur, c.deviceTicket);
      return;
    }
    if (ctx === null) tracer.emitShaped(slot.shape, ts, dur, grad, 'call_function', inputs, outputs);
    else tracer.emit(`function.${c.kernelName}`, CAT, ts, dur, { grad_enabled: grad, op: 'call_function', inputs, outputs, ...ctx });
  };

  /** Runs one compiled call: its span, its kernels' events, and a graph capture when the guard is new. */
  call(state: CompiledState, fn: (...args: unknown[]) => unknown, self: unknown, args: unknown[], prepare?: () => void): unknown {
    const tf = tfjs();
    if (tf === null) return fn.apply(self, args);
    this.tf = tf;
    const backend = state.backend;
    let sig = '';
    let capture: GraphCapture | null = null;
    try {
      sig = inputSignature(args);
      const guard = state.guards.get(sig);
      if (guard === undefined || guard.dynamic) capture = new GraphCapture(this.placeholders(state, args), this.params());
    } catch (e) {
      warnOnce('capture', `dynamo: graph capture stopped (${message(e)}); tracing goes on`);
    }
    const f = this.begin(backend, state.deviceTime, capture);
    const t = f.tracer;
    if (prepare !== undefined && (t !== null || f.capture !== null)) {
      try {
        prepare();
      } catch (e) {
        warnOnce('layers', `dynamo: layers are not traced (${message(e)}); kernels are`);
      }
    }
    const gradEnabled = this.gradEnabled();
    const span = t?.enter();
    let result: unknown;
    let ok = false;
    try {
      result = fn.apply(self, args);
      ok = true;
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        warnOnce('async', `dynamo: ${state.name} returned a promise: only its synchronous part is traced (tfjs kernels run synchronously; compile the sync model call instead)`);
      }
      return result;
    } finally {
      this.end(f);
      if (t !== null && span !== undefined) {
        const ctx = backend.contextArgs;
        t.exit(span, state.eventName, CAT, ctx === null ? state.callArgs[gradEnabled] : ({ ...state.callArgs[gradEnabled], ...ctx } as Args));
      }
      if (ok && f.capture !== null) this.keep(state, sig, f.capture, result);
    }
  }

  private placeholders(state: CompiledState, args: unknown[]): { name: string; tensor: TensorInfoLike }[] {
    const out: { name: string; tensor: TensorInfoLike }[] = [];
    args.forEach((a, i) => {
      for (const { path, tensor } of flattenTensors(a, state.argNames[i] ?? `arg${i}`)) out.push({ name: path, tensor });
    });
    return out;
  }

  /** dataId → name of every registered variable (model weights included), as get_attr targets. */
  private params(): Map<object, string> {
    const m = new Map<object, string>();
    const vars = this.engine().state.registeredVariables ?? {};
    for (const name in vars) {
      const v = vars[name];
      if (v != null) m.set(v.dataId, name);
    }
    return m;
  }

  private keep(state: CompiledState, sig: string, capture: GraphCapture, result: unknown): void {
    try {
      const parts = capture.finish(flattenTensors(result, 'out').map((r) => r.tensor));
      let guard = state.guards.get(sig);
      if (guard === undefined) {
        guard = { fingerprints: new Set(), dynamic: false };
        state.guards.set(sig, guard);
      }
      if (parts.length > 1) guard.dynamic = true;
      for (const p of parts) {
        const g = new Graph(state.name, -1, sig, p.nodes, p.partition);
        const fp = g.fingerprint();
        if (guard.fingerprints.has(fp)) continue;
        guard.fingerprints.add(fp);
        state.backend.addGraph((index) => new Graph(state.name, index, sig, p.nodes, p.partition));
      }
    } catch (e) {
      warnOnce('capture', `dynamo: graph capture stopped (${message(e)}); tracing goes on`);
    }
  }
}

const RUNTIME_KEY = Symbol.for('dftracer.dynamo.runtime');

/** One per process, shared by the ESM and CJS copies of this package. */
export function runtime(): Runtime {
  const g = globalThis as { [RUNTIME_KEY]?: Runtime };
  return (g[RUNTIME_KEY] ??= new Runtime());
}

export { message };
