import { activeTracer, tracingWanted } from './core-state.js';
import type { Tracer } from '../types.js';

/** The running tracer of this thread, for integrations; null when tracing is off. */
export function getTracer(): Tracer | null {
  return activeTracer();
}

/**
 * Whether tracing is (or, per DFTRACER_ENABLE, will be) on: integrations decide at decoration
 * time whether to wrap at all, so a disabled program runs its own functions untouched.
 */
export function tracingEnabled(): boolean {
  return tracingWanted();
}
