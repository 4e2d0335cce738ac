import { checkOptionKeys, getTracer, nowUs, warnOnce } from '@dftracer/core';
import type { DeviceTimeMode } from '@dftracer/tfjs';
import { checkDeviceTimeMode, startDeviceTiming, subscribeKernels, type DeviceTiming, type KernelCall, type TfCoreLike, type TfForDeviceTime } from '@dftracer/tfjs/internal';
import { activitySet, DeviceType, type ProfilerActivity } from './activity.js';
import type { ProfilerEvent, ProfilerStep } from './events.js';
import { HostMonitor } from './host.js';
import type { KeyAverages, KeyAveragesOptions } from './key-averages.js';
import { KernelLog, type EngineTotals } from './kernel-log.js';
import { attachLane, closeUnusedLane, openLane, wantsLane, type ReservedLane } from './lanes.js';
import { addSink, removeSink, type AnnotationSink } from './record-function.js';
import { CycleResult, type ProfilerResult } from './result.js';
import { ProfilerAction, recordAlways, type ScheduleFn } from './schedule.js';
import type { StackMetric } from './stacks.js';
import { backendDevice, engineOf, resolveTf } from './tf-core.js';

export interface ProfileOptions {
  /** Devices whose kernels are recorded. Default: both. */
  readonly activities?: readonly ProfilerActivity[];
  /** Which steps are recorded (`schedule({ wait, warmup, active, repeat, skipFirst })`). Default: every step from start() to stop(), one cycle. */
  readonly schedule?: ScheduleFn;
  /** Called with each recorded cycle at the end of its last active step (or at stop()). May return a promise; stop() waits for it. */
  readonly onTraceReady?: (result: ProfilerResult) => void | Promise<void>;
  /** Keep each kernel's input shapes and dtypes (and so `input_size`). */
  readonly recordShapes?: boolean;
  /** Keep each kernel's bytes and tensors added, and the engine's totals after it. */
  readonly profileMemory?: boolean;
  /** Keep the JS call sites that launched each kernel (costly: see the README). */
  readonly withStack?: boolean;
  /** The tfjs module to profile; default the one handed to @dftracer/tfjs (`loadTf`, `useTfNamespace`), else the installed `@tensorflow/tfjs-core`. */
  readonly tf?: unknown;
  /**
   * GPU time of kernels on asynchronous backends: `'auto'` (default: GPU timestamps where the
   * device has them), `'timestamp'`, `'sync'` or `'off'` (see @dftracer/tfjs). With timestamps,
   * a cycle is handed to `onTraceReady` once its kernels' device times are read back.
   */
  readonly deviceTime?: DeviceTimeMode;
}

const OPTION_KEYS: readonly (keyof ProfileOptions)[] = ['activities', 'schedule', 'onTraceReady', 'recordShapes', 'profileMemory', 'withStack', 'tf', 'deviceTime'];

/** A misspelt option (`shedule`) would silently profile every step: say so instead. */
function checkKeys(options: object): void {
  checkOptionKeys('profile', options, OPTION_KEYS);
}

function flag(options: ProfileOptions, name: keyof ProfileOptions): boolean {
  const v = options[name];
  if (v !== undefined && typeof v !== 'boolean') throw new TypeError(`profile: ${name} must be a boolean; got ${String(v)}`);
  return v === true;
}

/** The cycle being recorded: from its first active step to the end of its last. */
interface Recording extends AnnotationSink {
  readonly annotations: { name: string; start: number; end: number }[];
  readonly log: KernelLog;
  readonly host: HostMonitor;
  readonly steps: ProfilerStep[];
  readonly start: number;
  readonly lane: ReservedLane | null;
}

/**
 * torch.profiler.profile for tfjs: records every kernel of the scheduled steps (through core's
 * shared kernel hook, installed only while a cycle warms up or records) and hands each cycle to
 * `onTraceReady`.
 */
export class Profiler {
  /** Steps taken since start() (torch's `step_num`). */
  stepNum = 0;
  private readonly scheduleFn: ScheduleFn;
  private readonly onTraceReady: ProfileOptions['onTraceReady'];
  private readonly recordShapes: boolean;
  private readonly profileMemory: boolean;
  private readonly withStack: boolean;
  private readonly cpu: boolean;
  private readonly gpu: boolean;
  private readonly tfOption: unknown;
  private readonly deviceTimeMode: DeviceTimeMode;
  /** Device timing from start() to stop(); it times GPU programs only while a cycle records. */
  private timing: DeviceTiming | null = null;
  private tf: unknown = null;
  private engine: { readonly state: EngineTotals } | null = null;
  /** null before start() and after stop(). */
  private action: ProfilerAction | null = null;
  private stepStart = 0;
  private unsubscribe: (() => void) | null = null;
  private recording: Recording | null = null;
  private cycles = 0;
  private last: CycleResult | null = null;
  private readonly pending: Promise<void>[] = [];
  private handlerError: unknown = undefined;
  // Interned per profiler: the log stores small ints.
  private readonly nameIds = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly backendIds = new Map<string, number>();
  private readonly backends: string[] = [];
  private readonly devices: DeviceType[] = [];

  constructor(options: ProfileOptions = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError(`profile: options must be an object; got ${String(options)}`);
    checkKeys(options);
    const a = activitySet(options.activities);
    this.cpu = a.cpu;
    this.gpu = a.gpu;
    if (options.schedule !== undefined && typeof options.schedule !== 'function') throw new TypeError('profile: schedule must be a function (use schedule({ wait, warmup, active }))');
    if (options.onTraceReady !== undefined && typeof options.onTraceReady !== 'function') throw new TypeError('profile: onTraceReady must be a function');
    this.scheduleFn = options.schedule ?? recordAlways;
    this.onTraceReady = options.onTraceReady;
    this.recordShapes = flag(options, 'recordShapes');
    this.profileMemory = flag(options, 'profileMemory');
    this.withStack = flag(options, 'withStack');
    this.tfOption = options.tf;
    this.deviceTimeMode = checkDeviceTimeMode(options.deviceTime, 'profile');
  }

  /** Starts step 0. Returns the profiler, for `await using p = profile(opts).start()`. */
  start(): this {
    if (this.action !== null) throw new Error('Profiler.start: already started');
    this.tf ??= resolveTf(this.tfOption);
    this.engine = engineOf(this.tf);
    // A mode the backend cannot honour fails here, before anything is recorded.
    if (this.gpu && typeof (this.tf as { getBackend?: unknown }).getBackend === 'function') {
      this.timing = startDeviceTiming(this.tf as TfForDeviceTime, this.deviceTimeMode, 'profile', () => this.recording !== null);
    }
    this.stepNum = 0;
    this.stepStart = nowUs();
    const first = this.actionAt(0);
    this.transit(ProfilerAction.NONE, first, this.stepStart);
    this.action = first;
    return this;
  }

  /** Ends the current step and begins the next; hands a cycle to `onTraceReady` when one completes. */
  step(): void {
    if (this.action === null) throw new Error('Profiler.step: call start() first');
    const t = nowUs();
    this.endStep(t);
    const prev = this.action;
    this.stepNum++;
    this.stepStart = t;
    this.action = this.actionAt(this.stepNum);
    this.transit(prev, this.action, t);
  }

  /** Ends the current step and the profiler; a cycle being recorded is handed over. Waits for `onTraceReady` promises. */
  async stop(): Promise<void> {
    if (this.action !== null) {
      const t = nowUs();
      this.endStep(t);
      const prev = this.action;
      this.action = null;
      this.transit(prev, null, t);
    }
    const waiting = this.pending.splice(0);
    await Promise.all(waiting);
    this.timing?.release();
    this.timing = null;
    const err = this.handlerError;
    this.handlerError = undefined;
    if (err !== undefined) throw err;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** The last cycle handed over, or null. */
  get result(): ProfilerResult | null {
    return this.last;
  }

  /** The last cycle's events (empty before one is handed over). */
  events(): readonly ProfilerEvent[] {
    return this.last?.events() ?? [];
  }

  /** The last cycle's events grouped by name; throws before a cycle is handed over. */
  keyAverages(options?: KeyAveragesOptions): KeyAverages {
    return this.requireResult('keyAverages').keyAverages(options);
  }

  exportChromeTrace(path: string): void {
    this.requireResult('exportChromeTrace').exportChromeTrace(path);
  }

  exportStacks(path: string, metric?: StackMetric): void {
    this.requireResult('exportStacks').exportStacks(path, metric);
  }

  private requireResult(what: string): CycleResult {
    if (this.last === null) throw new Error(`Profiler.${what}: no cycle recorded yet (it is handed over at the end of a cycle's last active step, or at stop())`);
    return this.last;
  }

  private actionAt(step: number): ProfilerAction {
    const a = this.scheduleFn(step);
    if (a !== ProfilerAction.NONE && a !== ProfilerAction.WARMUP && a !== ProfilerAction.RECORD && a !== ProfilerAction.RECORD_AND_SAVE) {
      throw new TypeError(`profile: schedule(${step}) returned ${String(a)}, not a ProfilerAction`);
    }
    return a;
  }

  private endStep(t: number): void {
    const r = this.recording;
    if (r === null) return;
    const loop = r.host.sampleStep();
    r.steps.push({ step: this.stepNum, start: this.stepStart, duration: t - this.stepStart, eventLoopUtilization: loop.utilization, eventLoopDelayMaxUs: loop.delayMaxUs, eventLoopDelayMeanUs: loop.delayMeanUs });
  }

  /** torch's action map, from the action of the step that ended to that of the step beginning (null: stopped). */
  private transit(prev: ProfilerAction, next: ProfilerAction | null, t: number): void {
    const recordingPrev = prev === ProfilerAction.RECORD || prev === ProfilerAction.RECORD_AND_SAVE;
    let ready: CycleResult | Promise<CycleResult> | null = null;
    if (recordingPrev && (prev === ProfilerAction.RECORD_AND_SAVE || next === null || next === ProfilerAction.NONE || next === ProfilerAction.WARMUP)) {
      ready = this.finishCycle(t);
    }
    // The hook is installed while a cycle warms up or records, and only then; first, so that a tf
    // the hook refuses leaves nothing begun.
    const record = next === ProfilerAction.RECORD || next === ProfilerAction.RECORD_AND_SAVE;
    const wantHook = record || next === ProfilerAction.WARMUP;
    if (wantHook && this.unsubscribe === null) this.subscribe();
    if (record && this.recording === null) this.beginCycle(t);
    if (!wantHook && this.unsubscribe !== null) this.unsubscribeNow();
    if (ready !== null) this.handOver(ready);
  }

  private subscribe(): void {
    this.unsubscribe = subscribeKernels(this.tf as TfCoreLike, this.onKernel);
  }

  private unsubscribeNow(): void {
    const u = this.unsubscribe;
    this.unsubscribe = null;
    u?.();
  }

  private beginCycle(t: number): void {
    const host = new HostMonitor();
    host.start();
    const annotations: Recording['annotations'] = [];
    this.recording = {
      annotations,
      annotate: (name, start, end) => void annotations.push({ name, start, end }),
      log: new KernelLog({ recordShapes: this.recordShapes, profileMemory: this.profileMemory, withStack: this.withStack }),
      host,
      steps: [],
      start: t,
      lane: wantsLane(this.onTraceReady) ? openLane(t) : null,
    };
    addSink(this.recording);
  }

  /** Ends the recording; its result now, or once its kernels' GPU times are read back. */
  private finishCycle(t: number): CycleResult | Promise<CycleResult> {
    const r = this.recording!;
    this.recording = null;
    removeSink(r);
    const gc = r.host.stop(r.start, t);
    const timer = this.timing?.timer ?? null;
    const last = timer === null ? -1 : r.log.lastTicket();
    const stepNum = this.stepNum;
    if (timer === null || last < 0) return this.buildCycle(r, gc, t, stepNum);
    const cycle = this.cycles++;
    const p = timer.settle(last).then(() => {
      r.log.fillDeviceTimes(timer);
      return this.buildCycle(r, gc, t, stepNum, cycle);
    });
    this.timing!.hold(p);
    return p;
  }

  private buildCycle(r: Recording, gc: ReturnType<HostMonitor['stop']>, t: number, stepNum: number, cycle = this.cycles++): CycleResult {
    const events: ProfilerEvent[] = r.log.events(this.names, this.backends);
    const host = (name: string, kind: 'gc' | 'user_annotation', start: number, duration: number): ProfilerEvent => ({
      name, kind, device: DeviceType.CPU, backend: 'node', start, duration,
      step: r.steps.find((s) => start >= s.start && start < s.start + s.duration)?.step ?? stepNum,
      gradEnabled: false, inputShapes: [], inputDtypes: [], bytesAdded: 0, tensorsAdded: 0, totalBytes: 0, totalTensors: 0, stack: [],
    });
    // Annotations and GC pauses are host (CPU) activity, as torch files record_function under CPU.
    if (this.cpu) {
      for (const a of r.annotations) events.push(host(a.name, 'user_annotation', a.start, a.end - a.start));
      for (const g of gc) events.push(host(g.name, 'gc', g.start, g.duration));
    }
    events.sort((a, b) => a.start - b.start || b.duration - a.duration);
    const result = new CycleResult(cycle, stepNum, r.start, t, this.profileMemory, this.recordShapes, this.withStack, events, r.steps);
    if (r.lane !== null) attachLane(result, r.lane);
    this.last = result;
    return result;
  }

  private handOver(ready: CycleResult | Promise<CycleResult>): void {
    const keep = (p: Promise<void>) =>
      this.pending.push(
        p.then(undefined, (err: unknown) => {
          this.handlerError ??= err;
        }),
      );
    if (ready instanceof Promise) {
      // Handed over once the device times are in; stop() waits for it and for the handler.
      keep(ready.then((result) => this.callHandler(result)));
      return;
    }
    const p = this.callHandler(ready);
    if (p !== undefined) keep(p);
  }

  /** Runs onTraceReady; returns its promise when it gave one. */
  private callHandler(result: CycleResult): Promise<void> | undefined {
    const handler = this.onTraceReady;
    try {
      if (handler === undefined) return undefined;
      const p = handler(result);
      if (p !== null && typeof p === 'object' && typeof (p as Promise<void>).then === 'function') return Promise.resolve(p as Promise<void>);
      return undefined;
    } finally {
      closeUnusedLane(result);
    }
  }

  private readonly onKernel = (call: KernelCall): void => {
    const r = this.recording;
    if (r === null) return; // warming up: the hook is installed, its calls are dropped
    try {
      let b = this.backendIds.get(call.backendName);
      if (b === undefined) {
        b = this.backends.length;
        this.backends.push(call.backendName);
        this.devices.push(backendDevice(this.tf, call.backendName));
        this.backendIds.set(call.backendName, b);
      }
      const device = this.devices[b]!;
      if (device === DeviceType.GPU ? !this.gpu : !this.cpu) return;
      let id = this.nameIds.get(call.kernelName);
      if (id === undefined) {
        id = this.names.length;
        this.names.push(call.kernelName);
        this.nameIds.set(call.kernelName, id);
      }
      r.log.record(call, id, b, device, this.stepNum, this.profileMemory ? this.engine!.state : null);
    } catch (err) {
      warnOnce('profiler:kernel', `@dftracer/profiler: a kernel could not be recorded (${err instanceof Error ? err.message : String(err)}); later failures are silent`);
    }
  };
}

/**
 * `profile(options)`: a profiler to start(), step() and stop(). `profile(options, fn)`: starts
 * one, runs `fn(profiler)` (sync or async), stops it even when fn throws, and returns fn's result.
 */
export function profile(options?: ProfileOptions): Profiler;
export function profile<T>(options: ProfileOptions | undefined, fn: (profiler: Profiler) => T | Promise<T>): Promise<T>;
export function profile<T>(options?: ProfileOptions, fn?: (profiler: Profiler) => T | Promise<T>): Profiler | Promise<T> {
  const p = new Profiler(options);
  if (fn === undefined) return p;
  if (typeof fn !== 'function') throw new TypeError(`profile: the second argument must be a function; got ${String(fn)}`);
  return (async () => {
    p.start();
    let out: T;
    try {
      out = await fn(p);
    } catch (err) {
      await p.stop().catch(() => undefined);
      throw err;
    }
    await p.stop();
    return out;
  })();
}
