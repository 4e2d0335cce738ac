import { addPlugin, getTracer, warnOnce, type Span, type Tracer } from '@dftracer/core';
import { DeviceType } from './activity.js';
import type { ProfilerEvent } from './events.js';
import { CYCLE_CAT, CYCLE_NAME, RESERVES_LANE, takeLane } from './lanes.js';
import type { ProfilerResult } from './result.js';
import { selfFigures } from './self-time.js';

/** The category of profiled events in the trace, as pydftracer's trace_handler writes them. */
export const PP_CAT = 'PP';
const STEP_CAT = 'profiler';

const announced = new WeakSet<Tracer>();

/** Lists `PP` among the trace's plugins (the `end` event's `plugins` arg): the file says what wrote into it. */
function announce(tracer: Tracer): void {
  if (announced.has(tracer)) return;
  announced.add(tracer);
  // pydftracer's mark_used("torch_profiler"), under this package's name.
  tracer.markUsed('profiler');
  addPlugin({ name: PP_CAT, setup: () => undefined });
}

function percent(v: number, total: number): number {
  return total > 0 ? Math.round((1e6 * v) / total) / 1e4 : 0;
}

function dims(e: ProfilerEvent): number {
  let n = 0;
  for (const s of e.inputShapes) n += s.length;
  return n;
}

function isResult(r: unknown): r is ProfilerResult {
  const x = r as Partial<Record<keyof ProfilerResult, unknown>> | null;
  return x !== null && typeof x === 'object' && typeof x.events === 'function' && typeof x.steps === 'function' && typeof x.start === 'number' && typeof x.end === 'number';
}

function writeCycle(tracer: Tracer, result: ProfilerResult): number {
  const events = result.events();
  const self = selfFigures(events);
  let cpuTotal = 0;
  let devTotal = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.device === DeviceType.GPU) devTotal += e.deviceTime ?? self.time[i]!;
    else cpuTotal += self.time[i]!;
  }
  const emitEvent = (e: ProfilerEvent): void => {
    const gpu = e.device === DeviceType.GPU;
    const args: Record<string, number | string> = {
      device: e.device,
      cpu_memory: gpu ? 0 : e.bytesAdded,
      is_remote: 0,
      device_memory_usage: gpu ? e.bytesAdded : 0,
      input_size: dims(e),
      total_cpu_percent: gpu ? 0 : percent(e.duration, cpuTotal),
      total_device_percent: gpu ? percent(e.deviceTime ?? e.duration, devTotal) : 0,
      step: e.step,
    };
    // The kernel's GPU time; `dur` stays its dispatch on the host.
    if (e.deviceTime !== undefined) args.device_us = e.deviceTime;
    if (result.recordShapes && e.kind === 'kernel') args.input_shapes = JSON.stringify(e.inputShapes);
    if (e.stack.length > 0) args.call_site = e.stack[0]!;
    tracer.emit(e.name, PP_CAT, e.start, e.duration, args);
  };
  // Each step is a span on the lane with its events nested inside; events outside every step
  // (a GC pause reported between steps) go directly under the cycle.
  let k = 0;
  for (const s of result.steps()) {
    const end = s.start + s.duration;
    while (k < events.length && events[k]!.start < s.start) emitEvent(events[k++]!);
    const span = tracer.enter({ start: s.start });
    try {
      while (k < events.length && events[k]!.start + events[k]!.duration <= end) emitEvent(events[k++]!);
    } finally {
      // One name per step: written without a place in the session's name table.
      tracer.exitTransient(span, `ProfilerStep#${s.step}`, STEP_CAT, { step: s.step, event_loop_utilization: Math.round(s.eventLoopUtilization * 1e4) / 1e4, event_loop_delay_max_us: s.eventLoopDelayMaxUs }, end);
    }
  }
  while (k < events.length) emitEvent(events[k++]!);
  return events.length;
}

/**
 * pydftracer's trace_handler for tfjs: writes every event of a profiled cycle into the trace as cat
 * `PP`, with int args `device`, `cpu_memory`, `is_remote`, `device_memory_usage`, `input_size` and
 * float args `total_cpu_percent`, `total_device_percent` (and `device_us`, a GPU kernel's device
 * time, where it was measured), inside one `profiler.cycle` event, on the tracer's clock. Pass it as `onTraceReady`, or call it from your own handler. Does nothing when
 * tracing is off; never throws into the profiled program.
 */
export const traceHandler = Object.assign(
  function traceHandler(result: ProfilerResult): void {
    // Called from a training loop: a wrong argument is reported once, never thrown into the program.
    if (!isResult(result)) {
      warnOnce('profiler:traceHandler:arg', `@dftracer/profiler traceHandler: result must be the ProfilerResult that onTraceReady receives; got ${result === null ? 'null' : typeof result}; nothing written`);
      return;
    }
    const tracer = getTracer();
    if (tracer === null) return;
    let span: Span | null = null;
    let written = 0;
    try {
      announce(tracer);
      span = takeLane(result, tracer)?.span ?? tracer.enter({ async: true, start: result.start });
      const s = span;
      written = tracer.within(s, () => writeCycle(tracer, result));
    } catch (err) {
      warnOnce('profiler:traceHandler', `@dftracer/profiler traceHandler: ${err instanceof Error ? err.message : String(err)}; this cycle's PP events are incomplete`);
    } finally {
      if (span !== null) tracer.exit(span, CYCLE_NAME, CYCLE_CAT, { cycle: result.cycle, steps: result.steps().length, events: written }, result.end);
    }
  },
  { [RESERVES_LANE]: true as const },
);
