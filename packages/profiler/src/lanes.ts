import { getTracer, type Span, type Tracer } from '@dftracer/core';
import type { ProfilerResult } from './result.js';

/**
 * PP events go on a lane (an async span's own tid) so they never overlap the thread's I/O and
 * compute events on one Perfetto track. A lane taken when the cycle began is free for the whole
 * cycle; one taken afterwards may have carried an async operation during it. Handlers marked with
 * this symbol get a lane reserved at the cycle's start.
 */
export const RESERVES_LANE = Symbol.for('dftracer.profiler.reservesLane');

export interface ReservedLane {
  readonly tracer: Tracer;
  readonly span: Span;
  used: boolean;
}

const lanes = new WeakMap<ProfilerResult, ReservedLane>();

export function wantsLane(handler: unknown): boolean {
  return typeof handler === 'function' && (handler as { [RESERVES_LANE]?: unknown })[RESERVES_LANE] === true;
}

/** Opens the lane span at the cycle's first recorded step (null when tracing is off). */
export function openLane(start: number): ReservedLane | null {
  const tracer = getTracer();
  if (tracer === null) return null;
  return { tracer, span: tracer.enter({ async: true, start }), used: false };
}

export function attachLane(result: ProfilerResult, lane: ReservedLane): void {
  lanes.set(result, lane);
}

/** The result's reserved lane, once: later calls (a handler run twice) open a new one. */
export function takeLane(result: ProfilerResult, tracer: Tracer): ReservedLane | null {
  const lane = lanes.get(result);
  if (lane === undefined || lane.used || lane.tracer !== tracer) return null;
  lane.used = true;
  return lane;
}

/** Closes a reserved lane its handler did not use (the handler threw first), as an empty cycle span. */
export function closeUnusedLane(result: ProfilerResult): void {
  const lane = lanes.get(result);
  if (lane === undefined || lane.used) return;
  lane.used = true;
  lane.tracer.exit(lane.span, CYCLE_NAME, CYCLE_CAT, { cycle: result.cycle, events: 0 }, result.end);
}

/** The enclosing event of a cycle's PP events. Not cat PP: it spans I/O and waits as well as compute. */
export const CYCLE_NAME = 'profiler.cycle';
export const CYCLE_CAT = 'profiler';
