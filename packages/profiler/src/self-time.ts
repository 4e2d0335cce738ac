import type { ProfilerEvent } from './events.js';

/**
 * Each event's self time and self bytes: its own minus those of the events nested directly in it
 * (kernels inside a recordFunction region, or a kernel that launches kernels, as tfjs-node's fused
 * ops do). GC pauses are their own: they interrupt whatever runs.
 */
export function selfFigures(events: readonly ProfilerEvent[]): { time: Float64Array; bytes: Float64Array } {
  const time = new Float64Array(events.length);
  const bytes = new Float64Array(events.length);
  const order: number[] = [];
  for (let i = 0; i < events.length; i++) {
    time[i] = events[i]!.duration;
    bytes[i] = events[i]!.bytesAdded;
    if (events[i]!.kind !== 'gc') order.push(i);
  }
  // Parents first: earlier start, then longer.
  order.sort((a, b) => events[a]!.start - events[b]!.start || events[b]!.duration - events[a]!.duration);
  const open: number[] = [];
  for (const i of order) {
    const e = events[i]!;
    while (open.length > 0) {
      const top = events[open[open.length - 1]!]!;
      if (e.start >= top.start + top.duration) open.pop();
      else break;
    }
    const parent = open[open.length - 1];
    if (parent !== undefined && e.start + e.duration <= events[parent]!.start + events[parent]!.duration && e.duration < events[parent]!.duration) {
      time[parent] = time[parent]! - e.duration;
      bytes[parent] = bytes[parent]! - e.bytesAdded;
    }
    open.push(i);
  }
  return { time, bytes };
}
