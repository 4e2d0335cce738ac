import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';

interface GcProfilerLike {
  start(): void;
  stop(): { statistics?: readonly { cost?: number }[] } | undefined;
}

/**
 * GC pauses of this thread since the last reading, from two sources:
 * - a `gc` PerformanceObserver, cheap, but delivered only when the event loop turns;
 * - `v8.GCProfiler`, read synchronously, but it writes a JSON record with heap statistics on
 *   every GC (tens of µs each: several % of a program that allocates fast, such as tfjs kernels).
 * The profiler therefore runs only while the loop is held (a loop that never yields would see
 * no observer entries until it ends); the observer skips the GCs of those stretches, so none
 * is counted twice.
 */
export class GcMeter {
  private pauseUs = 0;
  private count = 0;
  private readonly observer: PerformanceObserver | null;
  private profiler: GcProfilerLike | null = null;
  /** When the running profiler started (performance ms). */
  private profiledFrom = 0;
  /** [from, to] pairs (performance ms) of stretches the profiler counted, oldest first. */
  private readonly profiled: number[] = [];
  private readonly canProfile: boolean;

  constructor() {
    let o: PerformanceObserver | null = null;
    try {
      o = new PerformanceObserver((list) => this.observed(list.getEntries()));
      o.observe({ entryTypes: ['gc'] });
    } catch {
      o = null; // no GC entries on this Node: only held stretches are counted
    }
    this.observer = o;
    this.canProfile = typeof (v8 as unknown as { GCProfiler?: unknown }).GCProfiler === 'function';
  }

  get available(): boolean {
    return this.observer !== null || this.canProfile;
  }

  /**
   * Pause time (µs) and count of the GCs counted since the last call, or null without a source.
   * `held`: the event loop has not turned for longer than an interval (the profiler takes over).
   */
  take(held: boolean): { pause_us: number; count: number } | null {
    if (!this.available) return null;
    if (this.profiler !== null) this.readProfiler(held);
    else if (held) this.startProfiler();
    const r = { pause_us: Math.round(this.pauseUs), count: this.count };
    this.pauseUs = 0;
    this.count = 0;
    return r;
  }

  /** The loop turned: the observer counts again. */
  loopTurned(): void {
    if (this.profiler !== null) this.readProfiler(false);
  }

  stop(): void {
    if (this.profiler !== null) this.readProfiler(false);
    this.observer?.disconnect();
  }

  private startProfiler(): void {
    if (!this.canProfile) return;
    try {
      const p = new (v8 as unknown as { GCProfiler: new () => GcProfilerLike }).GCProfiler();
      p.start();
      this.profiler = p;
      this.profiledFrom = performance.now();
    } catch {
      this.profiler = null;
    }
  }

  /** Adds the profiler's GCs; keeps it running only if the loop is still held. */
  private readProfiler(keep: boolean): void {
    const p = this.profiler!;
    try {
      for (const s of p.stop()?.statistics ?? []) {
        this.count++;
        this.pauseUs += typeof s.cost === 'number' ? s.cost : 0;
      }
    } catch {
      // stopped already: nothing more to read
    }
    if (keep) {
      try {
        p.start();
        return;
      } catch {
        // cannot go on: the observer counts from here
      }
    }
    this.profiler = null;
    this.profiled.push(this.profiledFrom, performance.now());
  }

  private observed(entries: readonly PerformanceEntry[]): void {
    const w = this.profiled;
    for (const e of entries) {
      // entries come in GC order: a stretch that ended before this GC has no more entries to skip
      while (w.length > 0 && w[1]! < e.startTime) w.splice(0, 2);
      if (this.profiler !== null && e.startTime >= this.profiledFrom) continue;
      if (w.length > 0 && e.startTime >= w[0]!) continue;
      this.count++;
      this.pauseUs += e.duration * 1000;
    }
  }
}
