import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Trace, TraceEvent } from './event.js';

/** True when the bytes start a gzip member (the extension is not trusted). */
export const isGzip = (buf: Uint8Array): boolean => buf[0] === 0x1f && buf[1] === 0x8b;

/**
 * Reads a whole DFTracer trace, plain or gzip (every member of a multi-member file). The first
 * line must be `[`; the closing `]` is optional (a killed process leaves none). A line that is not
 * JSON throws, naming the file and line.
 */
export function readTrace(file: string): Trace {
  const raw = readFileSync(file);
  return parseTrace(file, (isGzip(raw) ? gunzipSync(raw) : raw).toString('utf8'));
}

/** Parses the text of a trace; `file` only names it in errors. */
export function parseTrace(file: string, text: string): Trace {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== '[') throw new Error(`${file}: first line is ${JSON.stringify(lines[0])}, not "["`);
  // finalize() closes the array with a `]` line; a killed process leaves none
  const body = lines[lines.length - 1] === ']' ? lines.slice(1, -1) : lines.slice(1);
  const events = body.map((l, i) => {
    try {
      return JSON.parse(l) as TraceEvent;
    } catch (e) {
      throw new Error(`${file}:${i + 2}: ${(e as Error).message}: ${l.slice(0, 200)}`);
    }
  });
  return fromEvents(lines, events);
}

/**
 * Reads a file that may hold several traces one after another (a tracer that appended a run to an
 * existing file, or traces joined with `cat`): `[` and `]` lines anywhere, a `]` followed on its
 * line by the next run's first record, indented lines. Every record, in file order, as one Trace.
 */
export function readAppendedTrace(file: string): Trace {
  const raw = readFileSync(file);
  const lines = (isGzip(raw) ? gunzipSync(raw) : raw).toString('utf8').split('\n');
  const events: TraceEvent[] = [];
  lines.forEach((line, i) => {
    const l = line.trim().replace(/^\]\s*(?=\{)/, '');
    if (l === '' || l === '[' || l === ']') return;
    try {
      events.push(JSON.parse(l) as TraceEvent);
    } catch (e) {
      throw new Error(`${file}:${i + 1}: ${(e as Error).message}: ${l.slice(0, 200)}`);
    }
  });
  return fromEvents(lines, events);
}

/** A Trace over already parsed records. */
export function fromEvents(lines: string[], events: TraceEvent[]): Trace {
  const complete = events.filter((e) => e.ph === 'X');
  return {
    lines,
    events,
    complete,
    meta: events.filter((e) => e.ph === 'M'),
    counters: events.filter((e) => e.ph === 'C'),
    program: complete.filter((e) => e.cat !== 'dftracer'),
    byId: new Map(complete.map((e) => [e.id, e])),
  };
}

/** The trace files (`.pfw`, `.pfw.gz`) in a directory, sorted. */
export function traceFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pfw') || f.endsWith('.pfw.gz'))
    .sort()
    .map((f) => join(dir, f));
}
