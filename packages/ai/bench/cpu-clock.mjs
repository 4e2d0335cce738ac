// The clocks the ai benches read. Main-thread CPU comes from Linux schedstat, which the kernel
// updates at scheduler ticks (about 4 ms): a timed stretch must last far longer than a tick, so
// the benches time stretches of ≥ MIN_STRETCH_MS. Process CPU (getrusage) is exact but includes the
// writer thread; GC pauses come from perf_hooks.
import { existsSync, readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

export const MIN_STRETCH_MS = 150;
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
export const hasMainClock = existsSync(schedstat);
/** The main thread's CPU time in ns (0 where there is no schedstat). */
export const mainNs = hasMainClock ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) : () => 0;
/** The process's CPU time in µs, every thread's. */
export const processUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
/** GC pause time so far (ms); entries arrive asynchronously, so read it after an await. */
export const gcTotalMs = () => gcMs;
