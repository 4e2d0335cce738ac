import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** The delay histogram's resolution (ms): fine enough for p50 at 100 ms intervals, one timer per 10 ms. */
const DELAY_RESOLUTION_MS = 10;

let histogram: IntervalHistogram | null | undefined;

/**
 * This thread's event-loop delay histogram for the counters, made once and kept across sessions.
 * Node never frees a `monitorEventLoopDelay` histogram once its loop has turned (disabled or not):
 * one per session grew the process by ~0.25 MiB per initializeLog/finalize. Null where the
 * runtime cannot make one. The caller enables it for a session and disables it after.
 */
export function loopDelayHistogram(): IntervalHistogram | null {
  if (histogram !== undefined) return histogram;
  try {
    histogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  } catch {
    histogram = null;
  }
  return histogram;
}
