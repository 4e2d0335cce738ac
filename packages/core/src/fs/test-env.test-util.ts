import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Teardown } from '../types.js';
import { fsPlugin } from './index.js';
import { RecordingTracer } from './recording-tracer.test-util.js';

/** A temp dir with a traced `data/` and an untraced `outside/`, and the plugin installed on a RecordingTracer. */
export interface Env {
  readonly root: string;
  readonly data: string;
  readonly outside: string;
  readonly tr: RecordingTracer;
  close(): void;
}

// The originals, captured before any test installs the plugin.
const { mkdirSync } = fs;

export function setupEnv(dataDirs?: readonly string[] | 'all'): Env {
  const root = mkdtempSync(join(tmpdir(), 'dft-fs-'));
  const data = join(root, 'data');
  const outside = join(root, 'outside');
  mkdirSync(data);
  mkdirSync(outside);
  const tr = new RecordingTracer(dataDirs ?? [data], join(data, 'trace.pfw'));
  const teardown = fsPlugin().setup(tr) as Teardown;
  let closed = false;
  return {
    root,
    data,
    outside,
    tr,
    close() {
      if (closed) return;
      closed = true;
      teardown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Waits for pending callbacks and stream events. */
export function tick(ms = 0): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
