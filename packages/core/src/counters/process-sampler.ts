import { thousandths, type CounterValues } from './counter-line.js';

/** Where a sampler writes a sample: the record's name and its series (cat `sys`). */
export type PutCounter = (name: string, values: CounterValues) => void;

/**
 * Process-wide figures, right from any thread of the process: resident memory
 * (`process.memoryUsage.rss()`) and CPU time of all threads (`process.cpuUsage()`), as % of one
 * core over the interval (a busy main thread plus the writer may read above 100).
 */
export class ProcessSampler {
  private lastCpu = process.cpuUsage();
  private lastUs: number;

  constructor(now: number) {
    this.lastUs = now;
  }

  sample(now: number, put: PutCounter): void {
    put('memory', { rss: process.memoryUsage.rss() });
    const cpu = process.cpuUsage();
    const wall = now - this.lastUs;
    if (wall > 0) put('cpu', { user_pct: thousandths(((cpu.user - this.lastCpu.user) / wall) * 100), system_pct: thousandths(((cpu.system - this.lastCpu.system) / wall) * 100) });
    this.lastCpu = cpu;
    this.lastUs = now;
  }
}
