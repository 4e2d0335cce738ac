import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Teardown } from '../types.js';
import { fsPlugin } from '../fs/index.js';
import { RecordingTracer, type RecordedEvent } from './recording-tracer.test-util.js';
import { expect } from 'vitest';

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


/** [name, args] of the POSIX events in time order. */
export function calls(env: Env): [string, Record<string, unknown>][] {
  return env.tr.posix().map((e) => [e.name, e.args]);
}

/** Async events of one lane never overlap; every fhash resolves to an FH record of a traced path. */
export function checkInvariants(env: Env): void {
  const byLane = new Map<number, RecordedEvent[]>();
  for (const e of env.tr.posix()) {
    expect(e.dur).toBeGreaterThanOrEqual(0);
    expect(typeof e.args.fhash).toBe('string');
    expect(env.tr.pathOf(e.args.fhash)).toBeDefined();
    if (e.lane === 0) continue;
    const l = byLane.get(e.lane) ?? [];
    l.push(e);
    byLane.set(e.lane, l);
  }
  for (const evs of byLane.values()) {
    evs.sort((a, b) => a.ts - b.ts || a.id - b.id);
    for (let i = 1; i < evs.length; i++) expect(evs[i]!.ts).toBeGreaterThanOrEqual(evs[i - 1]!.ts + evs[i - 1]!.dur);
  }
}
