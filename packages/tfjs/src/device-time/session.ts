import { getTracer, type ArgValue, type Span, type Tracer } from '@dftracer/core';
import { kernelHub } from '../kernels/kernel-hub.js';
import { checkDeviceTimeMode, decideDeviceTime, type BackendFacts, type DeviceTimeDecision } from './mode.js';
import { WebGPUTimer, type WebGPUBackendLike } from './webgpu-timer.js';

/** The parts of the tfjs namespace device timing reads. */
export interface TfForDeviceTime {
  getBackend(): string;
  backend(): unknown;
}

interface Deferred {
  readonly tracer: Tracer;
  readonly track: string;
  readonly span: Span;
  readonly name: string;
  readonly cat: string;
  readonly args: Record<string, ArgValue>;
  readonly end: number;
  readonly ticket: number;
}

/** What the active backend can do for device timing. */
export function backendFacts(tf: TfForDeviceTime): BackendFacts {
  const name = tf.getBackend();
  const b = tf.backend() as { isUsingGpuDevice?: boolean; supportTimestampQuery?: boolean; device?: { features?: { has(n: string): boolean } } } | null;
  if (name === 'webgpu') {
    const ts = b?.supportTimestampQuery === true || b?.device?.features?.has('timestamp-query') === true;
    return { name, asynchronous: true, timestampQuery: ts, canWaitSync: false };
  }
  if (name === 'webgl') return { name, asynchronous: true, timestampQuery: false, canWaitSync: true };
  if (name === 'tensorflow' && b?.isUsingGpuDevice === true) return { name, asynchronous: true, timestampQuery: false, canWaitSync: true };
  return { name, asynchronous: false, timestampQuery: false, canWaitSync: true };
}

/**
 * One device timer per tfjs backend instance, shared by every integration that asked for device
 * time (dynamo, the profiler), with the kernel events waiting for their times.
 */
class DeviceTimeSession {
  users = 0;
  timer: WebGPUTimer | null = null;
  private pending: Deferred[] = [];
  private draining = false;
  private idle: (() => void)[] = [];
  private trackTids = new WeakMap<Tracer, Map<string, number>>();

  /** Each timestamp user's "a kernel I trace is running" predicate. */
  readonly wanted: (() => boolean)[] = [];

  constructor(readonly backend: object) {}

  ensureTimer(): void {
    if (this.timer !== null) return;
    const timer = new WebGPUTimer(this.backend as WebGPUBackendLike);
    const wanted = this.wanted;
    timer.armed = () => {
      for (let i = 0; i < wanted.length; i++) if (wanted[i]!()) return true;
      return false;
    };
    timer.install();
    this.timer = timer;
    kernelHub().deviceClaim = () => timer.claim();
  }

  /** Writes the kernel event (reserved at dispatch) and its device-track event once its device time is known. */
  defer(tracer: Tracer, track: string, span: Span, name: string, cat: string, args: Record<string, ArgValue>, end: number, ticket: number): void {
    if (this.timer === null || ticket < 0) {
      tracer.exit(span, name, cat, args, end);
      return;
    }
    this.pending.push({ tracer, track, span, name, cat, args, end, ticket });
    if (!this.draining) {
      this.draining = true;
      queueMicrotask(this.drainWhenReady);
    }
  }

  private readonly drainWhenReady = (): void => {
    const last = this.pending[this.pending.length - 1];
    if (last === undefined || this.timer === null) {
      this.draining = false;
      this.wakeIdle();
      return;
    }
    void this.timer.settle(last.ticket).then(() => {
      const upTo = last.ticket;
      const batch = this.pending;
      let i = 0;
      while (i < batch.length && batch[i]!.ticket <= upTo) this.write(batch[i++]!, true);
      this.pending = batch.slice(i);
      if (this.pending.length > 0) queueMicrotask(this.drainWhenReady);
      else {
        this.draining = false;
        this.wakeIdle();
      }
    });
  };

  private write(d: Deferred, withTimes: boolean): void {
    const t = this.timer;
    const us = withTimes && t !== null ? t.deviceUs(d.ticket) : -1;
    if (us < 0) {
      d.tracer.exit(d.span, d.name, d.cat, d.args, d.end);
      return;
    }
    d.tracer.exit(d.span, d.name, d.cat, { ...d.args, device_us: Math.round(us) }, d.end);
    if (us === 0) return; // no GPU program (a reshape, or work kept on the CPU)
    const start = t!.deviceStart(d.ticket);
    const stop = t!.deviceEnd(d.ticket);
    if (!(stop >= start)) return;
    const ts = Math.floor(start);
    d.tracer.emitOn(this.trackOf(d.tracer, d.track), d.name, d.cat, ts, Math.floor(stop) - ts, { device_us: Math.round(us), device_track: d.track, launch_id: d.span.id });
  }

  private trackOf(tracer: Tracer, name: string): number {
    let byName = this.trackTids.get(tracer);
    if (byName === undefined) this.trackTids.set(tracer, (byName = new Map()));
    let tid = byName.get(name);
    if (tid === undefined) {
      tid = tracer.track(name);
      byName.set(name, tid);
    }
    return tid;
  }

  private readonly held = new Set<Promise<unknown>>();

  /** Counts `work` (an integration's own wait for device times) in `settled()`. */
  hold(work: Promise<unknown>): void {
    const p = work.then(
      () => undefined,
      () => undefined,
    );
    this.held.add(p);
    void p.then(() => this.held.delete(p));
  }

  /** Resolves when every deferred event has been written and every held wait is over. */
  async settled(): Promise<void> {
    while (this.held.size > 0) await Promise.all([...this.held]);
    if (!this.draining && this.pending.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private wakeIdle(): void {
    for (const w of this.idle.splice(0)) w();
  }

  /** Writes what is still waiting (without device time) and puts the backend back. */
  close(): void {
    for (const d of this.pending.splice(0)) this.write(d, false);
    this.draining = false;
    this.wakeIdle();
    if (this.timer !== null) {
      const hub = kernelHub();
      hub.deviceClaim = null;
      this.timer.dispose();
    }
  }
}

let session: DeviceTimeSession | null = null;

/** A user's hold on device timing; `release()` when its tracer finalizes. */
export interface DeviceTiming {
  readonly decision: DeviceTimeDecision;
  /**
   * Writes a kernel event reserved at dispatch (`tracer.reserve(ts)`) now or, with timestamps,
   * once its device time has been read back: then with `device_us`, and on the device track.
   */
  defer(tracer: Tracer, span: Span, name: string, cat: string, args: Record<string, ArgValue>, end: number, ticket: number): void;
  /**
   * The timer itself, for integrations that read device times on their own schedule (the profiler):
   * `settle(ticket)`, then `deviceUs` / `deviceStart` / `deviceEnd`. Null unless mode is `timestamp`.
   */
  readonly timer: DeviceTimer | null;
  /** Makes `deviceTimesSettled()` wait for `work` too. */
  hold(work: Promise<unknown>): void;
  release(): void;
}

/** Reading device times by kernel ticket (`KernelCall.deviceTicket`). */
export type DeviceTimer = Pick<WebGPUTimer, 'settle' | 'deviceUs' | 'deviceStart' | 'deviceEnd'>;

/**
 * Starts device timing on the active backend for `requested` (checked; `where` names the caller in
 * errors). Throws DeviceTimeError where the backend cannot honour the mode. `active` says whether a
 * kernel the caller traces is running: GPU programs are timed only then. Writes the decision in
 * a `tfjs.device_time` CM record and at INFO.
 */
export function startDeviceTiming(tf: TfForDeviceTime, requested: unknown, where: string, active: () => boolean = () => true): DeviceTiming {
  const mode = checkDeviceTimeMode(requested, where);
  const decision = decideDeviceTime(mode, backendFacts(tf), where);
  const backend = tf.backend() as object;
  if (session !== null && session.backend !== backend) {
    session.close();
    session = null;
  }
  const s = (session ??= new DeviceTimeSession(backend));
  if (decision.mode === 'timestamp') {
    s.wanted.push(active);
    s.ensureTimer();
  }
  s.users++;
  const t = getTracer();
  t?.metadata('tfjs.device_time', { by: where, requested: decision.requested, mode: decision.mode, backend: decision.backend, reason: decision.reason, track: decision.track });
  t?.log('INFO', `${where}: device time on ${decision.backend}: ${decision.mode} (${decision.reason})`);
  const timed = decision.mode === 'timestamp';
  const track = decision.track ?? '';
  let released = false;
  return {
    decision,
    defer: timed ? (tracer, span, name, cat, args, end, ticket) => s.defer(tracer, track, span, name, cat, args, end, ticket) : (tracer, span, name, cat, args, end) => tracer.exit(span, name, cat, args, end),
    timer: timed ? s.timer : null,
    hold: (work) => s.hold(work),
    release() {
      if (released) return;
      released = true;
      const i = s.wanted.indexOf(active);
      if (i >= 0) s.wanted.splice(i, 1);
      if (--s.users === 0) {
        s.close();
        if (session === s) session = null;
      }
    },
  };
}

/**
 * Resolves when every kernel event waiting for its device time has been written: await it before
 * `finalize()` so that the last steps' kernels keep their `device_us`.
 */
export function deviceTimesSettled(): Promise<void> {
  return session === null ? Promise.resolve() : session.settled();
}
