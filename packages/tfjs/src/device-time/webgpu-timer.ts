import { nowUs, warnOnce } from '@dftracer/core';

/** The parts of a GPUDevice / encoder / buffer the timer uses (structural: no DOM types needed). */
export interface GpuBufferLike {
  mapAsync(mode: number, offset?: number, size?: number): Promise<void>;
  getMappedRange(offset?: number, size?: number): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}
export interface GpuQuerySetLike {
  destroy(): void;
}
export interface GpuEncoderLike {
  beginComputePass(descriptor?: object): unknown;
  resolveQuerySet(querySet: GpuQuerySetLike, first: number, count: number, destination: GpuBufferLike, offset: number): void;
  copyBufferToBuffer(source: GpuBufferLike, sourceOffset: number, destination: GpuBufferLike, destinationOffset: number, size: number): void;
}
export interface GpuDeviceLike {
  readonly features: { has(name: string): boolean };
  createQuerySet(descriptor: { type: 'timestamp'; count: number }): GpuQuerySetLike;
  createBuffer(descriptor: { size: number; usage: number }): GpuBufferLike;
}

/** The members of tfjs-backend-webgpu's WebGPUBackend (tfjs 4.x) the timer reads or wraps. */
export interface WebGPUBackendLike {
  device: GpuDeviceLike;
  commandEncoder: GpuEncoderLike | null;
  computePassEncoder: unknown;
  /** Set while tfjs's own time()/profile() runs: the timer then leaves every program to it. */
  activeTimers?: unknown;
  recordAndSubmit(...args: unknown[]): void;
  submitQueue(): void;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
}

// WebGPU's usage flags, by value: the constants are globals only where Dawn installed them.
const MAP_READ = 0x0001;
const COPY_SRC = 0x0004;
const COPY_DST = 0x0008;
const QUERY_RESOLVE = 0x0200;
const MAP_MODE_READ = 0x0001;

/** Programs per query set (two timestamps each; WebGPU allows 4096 queries in a set). */
const SET_PROGRAMS = 2048;
/** Programs and tickets remembered after resolution, for readers that come late. */
const RING = 1 << 16;
const MASK = RING - 1;

interface Waiter {
  readonly upTo: number;
  readonly resolve: () => void;
}

/**
 * Per-kernel GPU time on tfjs's WebGPU backend from timestamp queries, without blocking the
 * program. Each GPU program tfjs records gets a compute pass of its own whose begin and end
 * timestamps go to the next two slots of one query set; the set is resolved and read back once per
 * synchronous stretch of work (at the next microtask checkpoint, or when it fills), with one
 * staging buffer mapped asynchronously — where tfjs's own `time()` submits and maps per program.
 *
 * Kernels claim the programs recorded since the previous claim (`claim()`, called by the kernel
 * hub after each kernel); their device times are readable once `settle(ticket)` resolves. GPU
 * timestamps are placed on the host clock by the tightest offset consistent with causality (no
 * program starts before its command buffer was submitted), so device events never precede their
 * launch and keep the GPU's own gaps.
 */
export class WebGPUTimer {
  /** Host µs = GPU µs + offset. */
  private offset = -Infinity;
  private gpuBase: bigint | null = null;
  private readonly querySet: GpuQuerySetLike;
  private readonly resolveBuffer: GpuBufferLike;
  private readonly staging: GpuBufferLike[] = [];

  // Programs, by global index p (ring slot p & MASK).
  private recorded = 0;
  private submittedUpTo = 0;
  private resolvedUpTo = 0;
  private batchStart = 0;
  private readonly submitAt = new Float64Array(RING);
  private readonly begin = new Float64Array(RING);
  private readonly end = new Float64Array(RING);
  /** Batches resolved out of order wait here until the ones before them are in. */
  private readonly doneBatches = new Map<number, number>();

  // Tickets (one per kernel that ran), by index t (ring slot t & MASK).
  private tickets = 0;
  private claimedUpTo = 0;
  private readonly ticketFrom = new Float64Array(RING);
  private readonly ticketTo = new Float64Array(RING);

  private waiters: Waiter[] = [];
  private flushQueued = false;
  private installed = false;
  private originalRecord: WebGPUBackendLike['recordAndSubmit'] | null = null;
  private originalSubmit: WebGPUBackendLike['submitQueue'] | null = null;
  private wrappedRecord: WebGPUBackendLike['recordAndSubmit'] | null = null;
  private wrappedSubmit: WebGPUBackendLike['submitQueue'] | null = null;
  private disposed = false;
  /** Batches whose read-back failed: their programs read as unknown. */
  failedBatches = 0;
  /** Whether the program being recorded is wanted (a traced call runs); others keep tfjs's own path. */
  armed: () => boolean = () => true;

  constructor(private readonly backend: WebGPUBackendLike) {
    const device = backend.device;
    if (!device.features.has('timestamp-query')) throw new Error('the WebGPU device has no timestamp-query feature');
    this.querySet = device.createQuerySet({ type: 'timestamp', count: SET_PROGRAMS * 2 });
    this.resolveBuffer = device.createBuffer({ size: SET_PROGRAMS * 16, usage: QUERY_RESOLVE | COPY_SRC });
    this.ticketFrom.fill(0);
  }

  /** Wraps the backend's recordAndSubmit and submitQueue (own properties, removed at `dispose`). */
  install(): void {
    if (this.installed) return;
    this.installed = true;
    const b = this.backend;
    const timer = this;
    const record = b.recordAndSubmit;
    const submit = b.submitQueue;
    this.originalRecord = record;
    this.originalSubmit = submit;
    this.wrappedRecord = function timedRecordAndSubmit(this: WebGPUBackendLike, ...args: unknown[]): void {
      if (this.activeTimers != null || timer.disposed || !timer.armed()) return record.apply(this, args);
      timer.beginProgram(this);
      try {
        record.apply(this, args);
      } finally {
        // The next program gets a pass (and timestamps) of its own.
        this.endComputePassEncoder();
      }
    };
    this.wrappedSubmit = function timedSubmitQueue(this: WebGPUBackendLike): void {
      submit.call(this);
      timer.submitted();
    };
    b.recordAndSubmit = this.wrappedRecord;
    b.submitQueue = this.wrappedSubmit;
  }

  private beginProgram(b: WebGPUBackendLike): void {
    if (this.recorded - this.batchStart === SET_PROGRAMS) this.encodeResolve();
    const slot = this.recorded - this.batchStart;
    const p = this.recorded++;
    this.submitAt[p & MASK] = NaN;
    b.ensureCommandEncoderReady();
    b.endComputePassEncoder();
    b.computePassEncoder = b.commandEncoder!.beginComputePass({
      timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 2 * slot, endOfPassWriteIndex: 2 * slot + 1 },
    });
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushAtCheckpoint);
    }
  }

  private submitted(): void {
    const t = nowUs();
    for (let p = this.submittedUpTo; p < this.recorded; p++) this.submitAt[p & MASK] = t;
    this.submittedUpTo = this.recorded;
  }

  private readonly flushAtCheckpoint = (): void => {
    this.flushQueued = false;
    if (!this.disposed) this.encodeResolve();
  };

  /** Ends the current batch: resolves its queries into a staging buffer and reads it when the GPU is done. */
  encodeResolve(): void {
    const n = this.recorded - this.batchStart;
    if (n === 0) return;
    const first = this.batchStart;
    this.batchStart = this.recorded;
    const b = this.backend;
    let staging: GpuBufferLike | undefined;
    try {
      b.ensureCommandEncoderReady();
      b.endComputePassEncoder();
      staging = this.staging.pop() ?? b.device.createBuffer({ size: SET_PROGRAMS * 16, usage: MAP_READ | COPY_DST });
      const enc = b.commandEncoder!;
      enc.resolveQuerySet(this.querySet, 0, 2 * n, this.resolveBuffer, 0);
      enc.copyBufferToBuffer(this.resolveBuffer, 0, staging, 0, 16 * n);
      b.submitQueue();
    } catch (e) {
      this.batchDone(first, n, null, e);
      return;
    }
    const buf = staging;
    buf.mapAsync(MAP_MODE_READ, 0, 16 * n).then(
      () => {
        let times: BigUint64Array | null = null;
        try {
          times = new BigUint64Array(buf.getMappedRange(0, 16 * n).slice(0));
          buf.unmap();
        } catch (e) {
          this.batchDone(first, n, null, e);
          return;
        }
        if (this.disposed) buf.destroy();
        else this.staging.push(buf);
        this.batchDone(first, n, times, null);
      },
      (e: unknown) => this.batchDone(first, n, null, e),
    );
  }

  private batchDone(first: number, n: number, times: BigUint64Array | null, error: unknown): void {
    if (times === null) {
      this.failedBatches++;
      warnOnce('device-time.readback', `device time: reading the GPU timestamps back failed (${(error as Error)?.message ?? String(error)}); those kernels are written without device_us`);
    }
    for (let i = 0; i < n; i++) {
      const s = (first + i) & MASK;
      this.begin[s] = NaN;
      this.end[s] = NaN;
    }
    if (times !== null) {
      // Host µs = GPU µs + offset: the smallest offset with no program starting before its submit.
      this.gpuBase ??= times[0]!;
      let offset = this.offset;
      for (let i = 0; i < n; i++) {
        const b = times[2 * i]!;
        const e = times[2 * i + 1]!;
        // Zero or reversed pairs: the pass wrote no timestamps (an empty or skipped pass).
        if (b === 0n || e < b) continue;
        const s = (first + i) & MASK;
        this.begin[s] = Number(b - this.gpuBase) / 1000;
        this.end[s] = Number(e - this.gpuBase) / 1000;
        const submit = this.submitAt[s]!;
        if (submit - this.begin[s]! > offset) offset = submit - this.begin[s]!;
      }
      this.offset = offset;
      for (let i = 0; i < n; i++) {
        const s = (first + i) & MASK;
        this.begin[s] = this.begin[s]! + offset;
        this.end[s] = this.end[s]! + offset;
      }
    }
    this.doneBatches.set(first, n);
    while (this.doneBatches.has(this.resolvedUpTo)) {
      const k = this.doneBatches.get(this.resolvedUpTo)!;
      this.doneBatches.delete(this.resolvedUpTo);
      this.resolvedUpTo += k;
    }
    const ready = this.resolvedUpTo;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.upTo <= ready) w.resolve();
      else this.waiters.push(w);
    }
  }

  /** The programs recorded since the last claim belong to the kernel that just ran; returns its ticket. */
  claim(): number {
    const t = this.tickets++;
    this.ticketFrom[t & MASK] = this.claimedUpTo;
    this.ticketTo[t & MASK] = this.recorded;
    this.claimedUpTo = this.recorded;
    return t;
  }

  /** Resolves when the device times of `ticket` (and every earlier one) can be read. */
  settle(ticket: number): Promise<void> {
    if (ticket < 0 || ticket >= this.tickets) return Promise.resolve();
    const upTo = this.ticketTo[ticket & MASK]!;
    if (upTo <= this.resolvedUpTo || this.disposed) return Promise.resolve();
    if (upTo > this.batchStart) this.encodeResolve();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  /** Whether the ticket is still held (not overwritten by 65,536 later kernels). */
  private held(ticket: number): boolean {
    return ticket >= 0 && ticket < this.tickets && this.tickets - ticket <= RING && this.ticketTo[ticket & MASK]! <= this.resolvedUpTo;
  }

  /** GPU time of the kernel's programs in µs (their sum), 0 when it ran none, -1 when unknown. */
  deviceUs(ticket: number): number {
    if (!this.held(ticket)) return -1;
    let sum = 0;
    for (let p = this.ticketFrom[ticket & MASK]!, to = this.ticketTo[ticket & MASK]!; p < to; p++) {
      const s = p & MASK;
      const d = this.end[s]! - this.begin[s]!;
      if (!(d >= 0)) return -1;
      sum += d;
    }
    return sum;
  }

  /** Host-clock µs when the kernel's first program began on the GPU (NaN when none or unknown). */
  deviceStart(ticket: number): number {
    if (!this.held(ticket)) return NaN;
    const from = this.ticketFrom[ticket & MASK]!;
    return from < this.ticketTo[ticket & MASK]! ? this.begin[from & MASK]! : NaN;
  }

  /** Host-clock µs when the kernel's last program ended on the GPU (NaN when none or unknown). */
  deviceEnd(ticket: number): number {
    if (!this.held(ticket)) return NaN;
    const to = this.ticketTo[ticket & MASK]!;
    return to > this.ticketFrom[ticket & MASK]! ? this.end[(to - 1) & MASK]! : NaN;
  }

  /** GPU programs recorded so far (tests, diagnostics). */
  get programs(): number {
    return this.recorded;
  }

  /** Puts the backend's methods back and frees the GPU objects; pending readers resolve (unknown times). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const b = this.backend;
    // In the reverse order of install: V8 undoes the deletion of the property added last, while
    // deleting an earlier one turns the backend into a slow dictionary-mode object for good.
    if (b.submitQueue === this.wrappedSubmit) {
      if (Object.getPrototypeOf(b).submitQueue === this.originalSubmit) delete (b as Partial<WebGPUBackendLike>).submitQueue;
      else b.submitQueue = this.originalSubmit!;
    }
    if (b.recordAndSubmit === this.wrappedRecord) {
      if (Object.getPrototypeOf(b).recordAndSubmit === this.originalRecord) delete (b as Partial<WebGPUBackendLike>).recordAndSubmit;
      else b.recordAndSubmit = this.originalRecord!;
    }
    for (const w of this.waiters.splice(0)) w.resolve();
    try {
      this.querySet.destroy();
      this.resolveBuffer.destroy();
      for (const s of this.staging.splice(0)) s.destroy();
    } catch {
      // The device is gone already.
    }
  }
}
