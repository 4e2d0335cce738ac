import v8 from 'node:v8';

interface GcProfilerLike {
  start(): void;
  stop(): { statistics?: readonly { cost?: number }[] } | undefined;
}

/**
 * GC pauses of this thread since the last reading. A `gc` PerformanceObserver delivers only when
 * the event loop turns, so a loop that never yields would see none until it ends; `v8.GCProfiler`
 * is read synchronously (stop, then start again), so pauses inside such a loop are counted in the
 * interval they happened in. Only GCs in the few µs between stop and start go uncounted.
 */
export class GcMeter {
  private readonly profiler: GcProfilerLike | null;

  constructor() {
    const Ctor = (v8 as unknown as { GCProfiler?: new () => GcProfilerLike }).GCProfiler;
    let p: GcProfilerLike | null = null;
    try {
      if (Ctor !== undefined) {
        p = new Ctor();
        p.start();
      }
    } catch {
      p = null; // no GC figures on this Node; the other counters go on
    }
    this.profiler = p;
  }

  get available(): boolean {
    return this.profiler !== null;
  }

  /** Pause time (µs) and count of the GCs since the last call, or null without a profiler. */
  take(): { pause_us: number; count: number } | null {
    const p = this.profiler;
    if (p === null) return null;
    let pause = 0;
    let count = 0;
    try {
      const stats = p.stop()?.statistics ?? [];
      count = stats.length;
      for (const s of stats) pause += typeof s.cost === 'number' ? s.cost : 0;
    } finally {
      p.start();
    }
    return { pause_us: Math.round(pause), count };
  }

  stop(): void {
    try {
      this.profiler?.stop();
    } catch {
      // already stopped
    }
  }
}
