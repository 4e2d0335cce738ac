import { fsPlugin } from '../fs/index.js';
import type { DFTracerConfig, Plugin } from '../types.js';

/** The plugins every tracer installs unless configured off: the fs I/O tracer (`posix`). */
export function builtinPlugins(config: DFTracerConfig): Plugin[] {
  return config.disableIo ? [] : [fsPlugin()];
}
