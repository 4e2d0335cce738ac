import { writeFileSync } from 'node:fs';
import { DeviceType } from './activity.js';
import type { ProfilerEvent } from './events.js';
import { selfFigures } from './self-time.js';

export type StackMetric = 'self_cpu_time_total' | 'self_device_time_total' | 'self_cuda_time_total';

/**
 * torch's export_stacks: one `outer;…;inner;Kernel value` line per call path (collapsed stacks, as
 * flamegraph.pl and speedscope read them), the value being self time in µs on the metric's device.
 */
export function collapsedStacks(events: readonly ProfilerEvent[], metric: StackMetric = 'self_cpu_time_total'): string {
  if (!Array.isArray(events)) throw new TypeError(`collapsedStacks: events must be an array (a result's events()); got ${events === null ? 'null' : typeof events}`);
  if (metric !== 'self_cpu_time_total' && metric !== 'self_device_time_total' && metric !== 'self_cuda_time_total') {
    throw new TypeError(`exportStacks: metric must be self_cpu_time_total or self_device_time_total; got ${String(metric)}`);
  }
  const device = metric === 'self_cpu_time_total' ? DeviceType.CPU : DeviceType.GPU;
  const self = selfFigures(events);
  const totals = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.device !== device || e.stack.length === 0) continue;
    // Frame text without `;`, the format's separator.
    const path = [...e.stack].reverse().map((f) => f.replaceAll(';', ',')).join(';');
    const key = `${path};${e.name}`;
    totals.set(key, (totals.get(key) ?? 0) + self.time[i]!);
  }
  let out = '';
  for (const [k, v] of totals) if (v > 0) out += `${k} ${Math.round(v)}\n`;
  return out;
}

export function writeStacks(events: readonly ProfilerEvent[], path: string, metric?: StackMetric): void {
  if (typeof path !== 'string' || path === '') throw new TypeError(`exportStacks: path must be a non-empty string; got ${String(path)}`);
  writeFileSync(path, collapsedStacks(events, metric));
}
