import { readVariable } from '../config/resolve.js';
import type { ThreadTracer } from '../recording/tracer.js';
import type { DFTracerConfig, Teardown } from '../types.js';

/** Per-thread state, shared by the ESM and CJS copies of this package through a global symbol. */
export interface CoreState {
  tracer: ThreadTracer | null;
  teardowns: Teardown[];
  plugins: string[];
  initCount: number;
  hooked: boolean;
  /** This thread created the file: it writes `end` and closes it; joined workers only flush. */
  ownsFile: boolean;
  /** Config of the last successful init, so integrations can ask whether tracing is wanted. */
  config: DFTracerConfig | null;
  /** Between a successful initializeLog and finalize (even if writing failed meanwhile). */
  live: boolean;
  /** Events already reported as dropped, so the exit hook reports only those that came later. */
  droppedReported: number;
  /** `setAppMetadata` pairs: the `end` event's `app`. */
  app: Record<string, string | number | boolean>;
}

const STATE_KEY = Symbol.for('dftracer.core.state');

export function coreState(): CoreState {
  const g = globalThis as { [STATE_KEY]?: CoreState };
  return (g[STATE_KEY] ??= { tracer: null, teardowns: [], plugins: [], initCount: 0, hooked: false, ownsFile: false, config: null, live: false, droppedReported: 0, app: {} });
}

/** The active tracer of this thread, or null when tracing is off (not initialised or finalised). */
export function activeTracer(): ThreadTracer | null {
  const t = coreState().tracer;
  return t !== null && t.active ? t : null;
}

/**
 * Whether wrappers should be installed at decoration time. Only when tracing is explicitly off
 * (DFTRACER_ENABLE=0, or an init that resolved to disabled) do decorators return the function
 * itself; otherwise a thin wrapper calls straight through until a tracer is active, so functions
 * decorated at import time are traced by an `initializeLog({ enable: true })` made later.
 */
export function tracingWanted(): boolean {
  const s = coreState();
  if (s.tracer !== null && s.tracer.active) return true;
  if (s.config !== null) return s.config.enable;
  try {
    return readVariable('enable', process.env) !== false;
  } catch {
    return true; // a bad value is reported by initializeLog; until then, not explicitly off
  }
}
