/**
 * torch.profiler's step schedule: which action the profiler takes at each step number.
 */

/** What the profiler does during a step (torch.profiler.ProfilerAction). */
export enum ProfilerAction {
  /** Not profiling: no hook is installed, a step costs one function call. */
  NONE = 'NONE',
  /** The hook is installed and its events are discarded, so the first active step pays no set-up. */
  WARMUP = 'WARMUP',
  /** Events are recorded. */
  RECORD = 'RECORD',
  /** Events are recorded; at the end of this step the cycle's trace is handed to `onTraceReady`. */
  RECORD_AND_SAVE = 'RECORD_AND_SAVE',
}

/** Maps a step number (0-based, as counted by `Profiler.step()`) to an action. */
export type ScheduleFn = (step: number) => ProfilerAction;

export interface ScheduleOptions {
  /** Steps skipped at the start of each cycle. */
  readonly wait: number;
  /** Steps with the hook installed and events discarded, after `wait`. */
  readonly warmup: number;
  /** Steps recorded, after `warmup`; the last one hands the cycle to `onTraceReady`. At least 1. */
  readonly active: number;
  /** Cycles to run; 0 (the default) repeats until the profiler stops. */
  readonly repeat?: number;
  /** Steps ignored once, before the first cycle. */
  readonly skipFirst?: number;
}

function count(options: object, name: string, min: number, fallback?: number): number {
  const v = (options as Record<string, unknown>)[name];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new TypeError(`schedule: ${name} must be an integer ≥ ${min}; got ${String(v)}`);
  }
  return v;
}

/**
 * The cycle `skipFirst` once, then (`wait` none, `warmup`, `active` record) `repeat` times, as
 * torch.profiler.schedule: `schedule({ wait: 1, warmup: 1, active: 2, repeat: 1 })` records steps
 * 2 and 3 and hands them over at the end of step 3.
 */
export function schedule(options: ScheduleOptions): ScheduleFn {
  if (options === null || typeof options !== 'object') throw new TypeError(`schedule: options must be an object; got ${String(options)}`);
  const wait = count(options, 'wait', 0);
  const warmup = count(options, 'warmup', 0);
  const active = count(options, 'active', 1);
  const repeat = count(options, 'repeat', 0, 0);
  const skipFirst = count(options, 'skipFirst', 0, 0);
  const cycle = wait + warmup + active;
  const fn: ScheduleFn = (step) => {
    if (step < skipFirst) return ProfilerAction.NONE;
    const s = step - skipFirst;
    if (repeat > 0 && Math.floor(s / cycle) >= repeat) return ProfilerAction.NONE;
    const m = s % cycle;
    if (m < wait) return ProfilerAction.NONE;
    if (m < wait + warmup) return ProfilerAction.WARMUP;
    return m < cycle - 1 ? ProfilerAction.RECORD : ProfilerAction.RECORD_AND_SAVE;
  };
  return fn;
}

/** Without a schedule the profiler records from start() to stop(), one cycle handed over at stop. */
export const recordAlways: ScheduleFn = () => ProfilerAction.RECORD;
