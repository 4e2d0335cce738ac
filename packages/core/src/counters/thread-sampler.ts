import { performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import { GcMeter } from './gc-meter.js';
import { READ_BYTES, READ_OPS, WRITE_BYTES, WRITE_OPS, ioCounts } from './io-counts.js';
import { loopDelayHistogram } from './loop-delay.js';
import { thousandths } from './counter-line.js';
import type { PutCounter } from './process-sampler.js';

/**
 * Figures of the program's own thread (its V8 isolate): heap, event loop, GC and traced I/O.
 * Read where the program passes through the tracer, so they keep coming while its loop never
 * yields; the loop figures then say so (utilization 1, a delay as long as the loop has been held).
 */
export class ThreadSampler {
  private elu: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly delay: IntervalHistogram | null;
  private readonly gc = new GcMeter();
  private readonly io = new Float64Array(4);
  /** When the loop last ran our timer (µs): the loop has been held since, if that is long ago. */
  private loopSeen: number;

  constructor(
    now: number,
    private readonly intervalUs: number,
  ) {
    this.loopSeen = now;
    const h = loopDelayHistogram();
    if (h !== null) {
      h.reset();
      h.enable();
    }
    this.delay = h;
    this.io.set(ioCounts());
  }

  /** The event loop ran a timer of ours at `now`. */
  loopTurned(now: number): void {
    this.loopSeen = now;
    this.gc.loopTurned();
  }

  sample(now: number, put: PutCounter): void {
    const m = process.memoryUsage();
    put('memory', { heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external, array_buffers: m.arrayBuffers });
    const held = this.loop(now, put);
    const gc = this.gc.take(held);
    if (gc !== null) put('gc', gc);
    const c = ioCounts();
    const io = this.io;
    put('io', { read_bytes: c[READ_BYTES]! - io[READ_BYTES]!, write_bytes: c[WRITE_BYTES]! - io[WRITE_BYTES]!, read_ops: c[READ_OPS]! - io[READ_OPS]!, write_ops: c[WRITE_OPS]! - io[WRITE_OPS]! });
    io.set(c);
  }

  /** Writes the loop figures; returns whether the loop is held right now. */
  private loop(now: number, put: PutCounter): boolean {
    const next = performance.eventLoopUtilization();
    const u = performance.eventLoopUtilization(next, this.elu);
    this.elu = next;
    // Held right now: our timer is overdue by this much (the histogram learns of it only later).
    const held = Math.max(0, now - this.loopSeen - this.intervalUs);
    let p50 = 0;
    let max = 0;
    const h = this.delay;
    if (h !== null && h.count > 0) {
      // The histogram counts each sample's delay past its resolution, in ns.
      p50 = h.percentile(50) / 1000;
      max = h.max / 1000;
      h.reset();
    }
    put('event_loop', { utilization: thousandths(u.utilization), delay_p50_us: Math.round(held > 0 ? Math.max(p50, held) : p50), delay_max_us: Math.round(Math.max(max, held)) });
    return held > 0;
  }

  stop(): void {
    this.gc.stop();
    this.delay?.disable();
  }
}
