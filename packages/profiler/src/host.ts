import { constants, monitorEventLoopDelay, performance, PerformanceObserver, type EventLoopUtilization, type IntervalHistogram, type PerformanceEntry } from 'node:perf_hooks';
import { nowUs, perfMsToUs } from '@dftracer/core';

/** A garbage-collection pause, on the tracer's clock. */
export interface GcPause {
  readonly name: string;
  readonly start: number;
  readonly duration: number;
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'gc.minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'gc.major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'gc.incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'gc.weakcb',
};

/** The event loop's share of one step: utilization and delay. */
export interface LoopSample {
  readonly utilization: number;
  readonly delayMaxUs: number;
  readonly delayMeanUs: number;
}

/**
 * What a Node training loop loses outside kernels, watched only while a cycle records: GC pauses
 * (a `gc` PerformanceObserver) and the event loop's utilization and delay per step.
 */
export class HostMonitor {
  private readonly gc: GcPause[] = [];
  private observer: PerformanceObserver | null = null;
  private histogram: IntervalHistogram | null = null;
  private elu: EventLoopUtilization | null = null;

  start(): void {
    this.observer = new PerformanceObserver((list) => this.take(list.getEntries()));
    this.observer.observe({ entryTypes: ['gc'] });
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
    this.elu = performance.eventLoopUtilization();
  }

  private take(entries: readonly PerformanceEntry[]): void {
    for (const e of entries) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      // Both ends floored, as kernel times are, so a pause inside a kernel stays inside it.
      const start = perfMsToUs(e.startTime);
      this.gc.push({ name: GC_KINDS[kind] ?? 'gc', start, duration: perfMsToUs(e.startTime + e.duration) - start });
    }
  }

  /** The loop's figures since the previous call (or start), and a fresh window for the next step. */
  sampleStep(): LoopSample {
    const h = this.histogram;
    const prev = this.elu;
    if (h === null || prev === null) return { utilization: 0, delayMaxUs: 0, delayMeanUs: 0 };
    const now = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(now, prev);
    this.elu = now;
    // The histogram samples only when the loop turns: a step that never awaits has no samples.
    const sampled = h.count > 0;
    const s = { utilization: d.utilization, delayMaxUs: sampled ? Math.round(h.max / 1000) : 0, delayMeanUs: sampled ? Math.round(h.mean / 1000) : 0 };
    h.reset();
    return s;
  }

  /**
   * Stops watching; returns the GC pauses that began in [from, to]. Node reports a pause only after
   * the event loop turns, so in a loop that never awaits, the last steps' pauses are not yet known.
   */
  stop(from: number, to: number = nowUs()): GcPause[] {
    if (this.observer !== null) {
      this.take(this.observer.takeRecords());
      this.observer.disconnect();
      this.observer = null;
    }
    this.histogram?.disable();
    this.histogram = null;
    this.elu = null;
    return this.gc.filter((g) => g.start >= from && g.start <= to);
  }
}
