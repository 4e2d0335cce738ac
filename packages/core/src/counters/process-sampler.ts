import { availableParallelism } from 'node:os';
import { thousandths, type CounterValues } from './counter-line.js';

/** Where a sampler writes a sample: the record's name and its series (cat `sys`). */
export type PutCounter = (name: string, values: CounterValues) => void;

/**
 * CPU is read over at least this long. Linux brings a busy thread's CPU time up to date at its
 * scheduler ticks (1–10 ms), so over a few milliseconds `process.cpuUsage()` is off by about a
 * tick per busy thread: a 1 ms window read 366 % on a 2-core machine.
 */
export const MIN_CPU_WINDOW_US = 50_000;

/**
 * Process-wide figures, right from any thread of the process: resident memory
 * (`process.memoryUsage.rss()`) and the CPU time of all its threads (`process.cpuUsage()`) as a
 * percentage of one core: 100 is one core busy for the whole interval, and all the threads
 * together read at most 100 × the cores the process may run on (`os.availableParallelism()`).
 * Time the kernel counted ahead of its ticks is reported with the next samples (the baseline
 * advances only by what was reported), so no sample leaves that range and none is lost.
 */
export class ProcessSampler {
  private lastUser: number;
  private lastSystem: number;
  private lastUs: number;
  private readonly cores = availableParallelism();

  constructor(now: number) {
    const cpu = process.cpuUsage();
    this.lastUser = cpu.user;
    this.lastSystem = cpu.system;
    this.lastUs = now;
  }

  sample(now: number, put: PutCounter): void {
    put('memory', { rss: process.memoryUsage.rss() });
    const wall = now - this.lastUs;
    // A shorter window waits: the next sample covers it.
    if (wall < MIN_CPU_WINDOW_US) return;
    const cpu = process.cpuUsage();
    let user = cpu.user - this.lastUser;
    let system = cpu.system - this.lastSystem;
    const cap = wall * this.cores;
    if (user + system > cap) {
      const scale = cap / (user + system);
      user *= scale;
      system *= scale;
    }
    this.lastUser += user;
    this.lastSystem += system;
    this.lastUs = now;
    put('cpu', { user_pct: thousandths((user / wall) * 100), system_pct: thousandths((system / wall) * 100) });
  }
}
