import { resolve } from 'node:path';
import { nowUs } from '../recording/clock.js';
import { dftHash } from '../recording/hash.js';
import { resolveConfig } from '../config/resolve.js';
import type { ArgValue, Args, DFTracerConfig, EnterOptions, EventShape, LogLevel, Span, Tracer } from '../types.js';

/** One recorded complete event. `lane` is 0 for sync events, the async lane otherwise. */
export interface RecordedEvent {
  readonly id: number;
  readonly name: string;
  readonly cat: string;
  readonly ts: number;
  readonly dur: number;
  readonly level: number;
  readonly parentId: number;
  readonly lane: number;
  readonly args: Record<string, unknown>;
}

interface RecSpan extends Span {
  lane: number;
  open: boolean;
}

/**
 * An in-memory Tracer with the semantics of the real one (types.ts): sync spans nest on a stack,
 * async spans take a lane from a LIFO free list at enter and give it back at exit, `emit` records
 * a child of the current context, `hashFile` records the FH metadata once, `isTraced` compares
 * data-dir prefixes by path segment and always excludes the trace file.
 */
export class RecordingTracer implements Tracer {
  readonly config: DFTracerConfig;
  readonly events: RecordedEvent[] = [];
  /** FH records in the order written: path → hash. */
  readonly files = new Map<string, string>();
  readonly logs: { level: LogLevel; message: string }[] = [];
  /** Throw from every method after this many calls (tests that tracer failures never reach the program). */
  failAfter = Infinity;
  /** Tracer calls so far (set `failAfter = calls` to fail from now on). */
  calls = 0;
  private nextId = 1;
  private readonly stack: RecSpan[] = [];
  private readonly freeLanes: number[] = [];
  private nextLane = 1;

  constructor(
    dataDirs: readonly string[] | 'all',
    readonly traceFile = '/nonexistent/trace.pfw',
  ) {
    // Every other setting at its default, whatever settings are added.
    this.config = resolveConfig({ enable: true, logFile: traceFile, dataDir: dataDirs, compression: false, countersIntervalMs: 0 }, {});
  }

  private tick(): void {
    if (++this.calls > this.failAfter) throw new Error('recording tracer: injected failure');
  }

  now(): number {
    this.tick();
    return nowUs();
  }

  private parent(): { id: number; level: number } {
    const top = this.stack[this.stack.length - 1];
    return top === undefined ? { id: -1, level: 0 } : { id: top.id, level: top.level };
  }

  enter(options?: EnterOptions): Span {
    this.tick();
    const p = this.parent();
    const span: RecSpan = {
      id: this.nextId++,
      level: p.level + 1,
      parentId: p.id,
      start: options?.start ?? nowUs(),
      async: options?.async === true,
      lane: 0,
      open: true,
    };
    if (span.async) span.lane = this.freeLanes.pop() ?? this.nextLane++;
    else this.stack.push(span);
    return span;
  }

  exitTransient(span: Span, name: string, cat: string, args?: Args, end?: number): void {
    this.exit(span, name, cat, args, end);
  }

  exit(span: Span, name: string, cat: string, args?: Args, end?: number): void {
    this.tick();
    const s = span as RecSpan;
    if (!s.open) return;
    s.open = false;
    if (s.async) this.freeLanes.push(s.lane);
    else {
      const i = this.stack.lastIndexOf(s);
      if (i !== -1) this.stack.length = i;
    }
    const t1 = end ?? nowUs();
    this.events.push({ id: s.id, name, cat, ts: s.start, dur: t1 - s.start, level: s.level, parentId: s.parentId, lane: s.lane, args: { ...(args ?? {}) } });
  }

  within<T>(span: Span, fn: () => T): T {
    this.stack.push(span as RecSpan);
    try {
      return fn();
    } finally {
      this.stack.pop();
    }
  }

  /** Names given to markUsed, in order of first call. */
  readonly used = new Set<string>();

  markUsed(name: string): void {
    this.used.add(name);
  }

  emit(name: string, cat: string, ts: number, dur: number, args?: Args): void {
    this.tick();
    const p = this.parent();
    this.events.push({ id: this.nextId++, name, cat, ts, dur, level: p.level + 1, parentId: p.id, lane: 0, args: { ...(args ?? {}) } });
  }

  reserve(start?: number): Span {
    this.tick();
    const p = this.parent();
    const span: RecSpan = { id: this.nextId++, level: p.level + 1, parentId: p.id, start: start ?? nowUs(), async: false, lane: 0, open: true };
    return span;
  }

  /** Named tracks: lane numbers from 9000 up, one per name. */
  private readonly trackLanes = new Map<string, number>();

  track(name: string): number {
    let lane = this.trackLanes.get(name);
    if (lane === undefined) {
      lane = 9000 + this.trackLanes.size;
      this.trackLanes.set(name, lane);
    }
    return lane;
  }

  emitOn(track: number, name: string, cat: string, ts: number, dur: number, args?: Args): void {
    this.tick();
    this.events.push({ id: this.nextId++, name, cat, ts, dur, level: 1, parentId: -1, lane: track, args: { ...(args ?? {}) } });
  }

  private readonly shapes: { name: string; cat: string; keys: readonly string[] }[] = [];

  shape(name: string, cat: string, keys: readonly string[]): EventShape {
    this.shapes.push({ name, cat, keys: [...keys] });
    return (this.shapes.length - 1) as EventShape;
  }

  emitShaped(shape: EventShape, ts: number, dur: number, ...values: ArgValue[]): void {
    const { name, cat, keys } = this.shapes[shape]!;
    this.emit(name, cat, ts, dur, Object.fromEntries(keys.map((k, i) => [k, values[i]])));
  }

  hashFile(path: string): string {
    this.tick();
    let h = this.files.get(path);
    if (h === undefined) {
      h = dftHash(path);
      this.files.set(path, h);
    }
    return h;
  }

  hashString(s: string): string {
    return dftHash(s);
  }

  metadata(): void {}

  isTraced(path: string): boolean {
    this.tick();
    const p = resolve(path);
    if (p === resolve(this.traceFile)) return false;
    if (this.config.traceAll) return true;
    return this.config.dataDirs.some((d) => p === d || p.startsWith(d.endsWith('/') ? d : `${d}/`));
  }

  log(level: LogLevel, message: string): void {
    this.logs.push({ level, message });
  }

  private readonly warned = new Set<string>();
  warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log('WARN', message);
  }

  // ---------------------------------------------------------------- test helpers

  /** POSIX events, oldest first by start time (ties by id). */
  posix(): RecordedEvent[] {
    return this.events.filter((e) => e.cat === 'POSIX').sort((a, b) => a.ts - b.ts || a.id - b.id);
  }

  /** POSIX event names in start-time order. */
  names(): string[] {
    return this.posix().map((e) => e.name);
  }

  /** The path an fhash names (undefined if no FH record was written for it). */
  pathOf(fhash: unknown): string | undefined {
    for (const [p, h] of this.files) if (h === fhash) return p;
    return undefined;
  }

  clear(): void {
    this.events.length = 0;
  }
}
