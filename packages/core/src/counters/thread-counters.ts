import { nowUs } from '../recording/clock.js';
import type { CounterValues } from './counter-line.js';
import { ProcessSampler } from './process-sampler.js';
import { counterSamplers, type EmitCounter } from './samplers.js';
import { ThreadSampler } from './thread-sampler.js';

/** What the counters need of the thread's tracer. */
export interface CounterHost {
  /** Writes one counter record at `ts` (µs). */
  counter(name: string, cat: string, values: CounterValues, ts?: number): void;
  /** Whether the writer thread samples the process-wide figures (rss, CPU) on its own timer. */
  readonly writerSamplesProcess: boolean;
  log(level: 'WARN', message: string): void;
}

import { SYS_CAT } from './sys-cat.js';

/**
 * The counters of the program's thread. `due` holds the time of the next sample: the tracer
 * compares each event's end with it (one load and compare) and calls `poll` when it is reached,
 * so a loop that never yields but passes through the tracer is still sampled; a timer samples a
 * thread that waits (its loop turns, no events). Without a writer thread, rss and CPU are sampled
 * here too.
 */
export class ThreadCounters {
  /** Next sample time, µs; Infinity once stopped. */
  readonly due = new Float64Array([Infinity]);
  private readonly intervalUs: number;
  private readonly thread: ThreadSampler;
  private readonly proc: ProcessSampler;
  private timer: ReturnType<typeof setInterval> | null = null;
  private failed = false;
  private readonly warned = new WeakSet<object>();
  private readonly put: (now: number) => (name: string, values: CounterValues) => void;
  private readonly emit: EmitCounter;

  constructor(
    private readonly host: CounterHost,
    intervalMs: number,
  ) {
    const now = nowUs();
    this.intervalUs = intervalMs * 1000;
    this.thread = new ThreadSampler(now, this.intervalUs);
    this.proc = new ProcessSampler(now);
    let at = now;
    const sys = (name: string, values: CounterValues) => host.counter(name, SYS_CAT, values, at);
    this.put = (now) => {
      at = now;
      return sys;
    };
    this.emit = (name, cat, values) => host.counter(name, cat, values, at);
    this.timer = setInterval(() => {
      const t = nowUs();
      this.thread.loopTurned(t);
      this.poll();
    }, intervalMs);
    this.timer.unref();
    // The first sample right away: a short program still gets one of each.
    this.due[0] = now;
  }

  /** Samples if the interval has passed (re-read here: an event may carry any time). */
  poll(): void {
    const now = nowUs();
    if (now < this.due[0]!) return;
    this.due[0] = now + this.intervalUs;
    this.sample(now);
  }

  private sample(now: number): void {
    if (this.failed) return;
    try {
      const put = this.put(now);
      if (!this.host.writerSamplesProcess) this.proc.sample(now, put);
      this.thread.sample(now, put);
      for (const s of counterSamplers()) {
        try {
          s(this.emit);
        } catch (e) {
          if (this.warned.has(s)) continue;
          this.warned.add(s);
          this.host.log('WARN', `a counter sampler (${s.name || 'anonymous'}) threw: ${(e as Error)?.message ?? String(e)}; reported once, it is called again next interval`);
        }
      }
    } catch (e) {
      // Counters are a view beside the events: they stop, the events and the program go on.
      this.failed = true;
      this.host.log('WARN', `counters stopped after an internal error: ${(e as Error)?.message ?? String(e)}`);
    }
  }

  /** A last sample (the state at the end of the run), then no more. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.due[0] !== Infinity) this.sample(nowUs());
    this.due[0] = Infinity;
    this.thread.stop();
  }
}
