import { getTracer } from '../api/access.js';

// Keys already said while no tracer ran (process-wide across the ESM and CJS copies of core).
const SAID_KEY = Symbol.for('dftracer.core.warnOnce');

function said(): Set<string> {
  const g = globalThis as { [SAID_KEY]?: Set<string> };
  return (g[SAID_KEY] ??= new Set());
}

/**
 * A warning said once per key: through the running tracer at WARN (once per trace file, whichever
 * thread says it first), or on stderr when tracing is off. For integrations, whose failures must
 * reach the user without flooding the log or stopping the program.
 */
export function warnOnce(key: string, message: string): void {
  if (typeof key !== 'string' || key === '') throw new TypeError(`warnOnce: key must be a non-empty string; got ${JSON.stringify(key)}`);
  const t = getTracer();
  if (t !== null) {
    t.warnOnce(key, message);
    return;
  }
  const s = said();
  if (s.has(key)) return;
  s.add(key);
  process.stderr.write(`dftracer: WARN: ${message}\n`);
}
