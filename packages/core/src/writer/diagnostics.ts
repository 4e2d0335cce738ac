import * as fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

// Captured before any plugin wraps node:fs.
const { writeSync } = fs;

/**
 * Writes the tracer's own diagnostics to stderr; never throws. In a worker thread it writes fd 2
 * directly: a worker's process.stderr is relayed through the main thread and is lost when the
 * process ends first (a warning about a failed trace must not be).
 */
export function writeDiagnostic(text: string): void {
  try {
    if (isMainThread) process.stderr.write(text);
    else writeSync(2, text);
  } catch {
    // stderr closed: nothing to tell.
  }
}
