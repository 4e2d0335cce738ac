import type { DFTracerConfig, Plugin } from './types.js';

/** The plugins every tracer installs unless configured off. */
export function builtinPlugins(_config: DFTracerConfig): Plugin[] {
  return [];
}
