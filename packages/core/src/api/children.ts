import { inheritedEnv } from '../config/resolve.js';
import type { DFTracerConfig } from '../types.js';

/**
 * Child processes (`child_process.fork/spawn/exec`, `cluster` workers) are separate processes:
 * each traces only if it loads the tracer, and then writes its own file (the name hashes
 * exec-host-pid). What they inherit is the environment, so after init the resolved settings are
 * exported into `process.env` (as DFTracer does with setenv): a child that calls `initializeLog()`
 * with no options, or runs with the register entry, traces like its parent into the same
 * directory, even from another working directory. finalize restores the previous values.
 *
 * The register entry (`node --import @dftracer/core/register`) also puts itself into NODE_OPTIONS,
 * the analogue of an inherited LD_PRELOAD: `spawn('node', ...)` children are traced too, not only
 * `fork()` children (which inherit execArgv). A program that calls initializeLog itself does not
 * touch NODE_OPTIONS.
 */

interface Saved {
  /** Variable → value before we set it (undefined: it was unset). */
  readonly before: Map<string, string | undefined>;
  /** Variable → value we set, so finalize restores only what nobody changed since. */
  readonly ours: Map<string, string>;
}

const SAVED_KEY = Symbol.for('dftracer.core.childEnv');

function saved(): Saved {
  const g = globalThis as { [SAVED_KEY]?: Saved };
  return (g[SAVED_KEY] ??= { before: new Map(), ours: new Map() });
}

/** The DFTRACER_* variables that reproduce `config` in a child (each setting says how it is inherited). */
export function childEnv(config: DFTracerConfig): Record<string, string> {
  return inheritedEnv(config);
}

function set(name: string, value: string): void {
  const s = saved();
  if (!s.before.has(name)) s.before.set(name, process.env[name]);
  s.ours.set(name, value);
  process.env[name] = value;
}

/** Exports the resolved configuration into process.env for child processes. */
export function exportToChildren(config: DFTracerConfig): void {
  for (const [k, v] of Object.entries(childEnv(config))) set(k, v);
}

/**
 * Adds `--import <url>` for the register entry to NODE_OPTIONS, so node children load the tracer
 * before their own code. `url` is the register entry's own file URL.
 */
export function preloadInChildren(url: string): void {
  const current = process.env.NODE_OPTIONS ?? '';
  if (current.includes(url)) return;
  // File URLs are percent-encoded: no space or quote can break NODE_OPTIONS' word splitting.
  set('NODE_OPTIONS', `${current}${current.trim() === '' ? '' : ' '}--import ${url}`.trim());
}

/** Puts back the variables exported at init, unless the program changed them since. */
export function restoreChildEnv(): void {
  const s = saved();
  for (const [name, before] of s.before) {
    if (process.env[name] !== s.ours.get(name)) continue;
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
  s.before.clear();
  s.ours.clear();
}
