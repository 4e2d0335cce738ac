/** Test support: a real tracer writing an uncompressed trace, read back as events. Not shipped. */
import { finalize, initializeLog } from '@dftracer/core';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TraceEvent {
  id: number;
  name: string;
  cat: string;
  ts: number;
  dur: number;
  ph: string;
  args: Record<string, unknown> & { level: number; p_idx: number };
}

/** Starts the process's tracer on a fresh file; returns a function that finalizes and reads it. */
export function startTrace(stem = 'dynamo'): (() => TraceEvent[]) & { readonly file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dft-dynamo-'));
  const log = initializeLog({ enable: true, logFile: join(dir, stem), dataDir: join(dir, 'none'), compression: false });
  const file = log.file!;
  const stop = () => {
    finalize();
    return readEvents(file);
  };
  return Object.assign(stop, { file });
}

/** The complete (`X`) events of an uncompressed trace file. */
export function readEvents(file: string): TraceEvent[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as TraceEvent)
    .filter((e) => e.ph === 'X');
}

/** The events between two ids (exclusive), e.g. those written during one step of a test. */
export const after = (events: readonly TraceEvent[], id: number) => events.filter((e) => e.id > id);

/** The chain of span names from an event up to the top. */
export function ancestry(events: readonly TraceEvent[], e: TraceEvent): string[] {
  const byId = new Map(events.map((x) => [x.id, x]));
  const out: string[] = [];
  let p = byId.get(e.args.p_idx);
  while (p !== undefined) {
    out.push(p.name);
    p = byId.get(p.args.p_idx);
  }
  return out;
}
