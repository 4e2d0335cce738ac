import { writeChromeTrace } from './chrome-trace.js';
import type { ProfilerEvent, ProfilerStep } from './events.js';
import { KeyAverages, type KeyAveragesOptions } from './key-averages.js';
import { writeStacks, type StackMetric } from './stacks.js';

/** What `onTraceReady` receives: one recorded cycle (torch's profiler result). */
export interface ProfilerResult {
  /** 0-based index of this cycle among the profiler's handed-over cycles. */
  readonly cycle: number;
  /** The profiler's step number when the cycle was handed over (torch's `step_num`). */
  readonly stepNum: number;
  /** First recorded step's start and last recorded step's end, µs since the epoch (tracer clock). */
  readonly start: number;
  readonly end: number;
  /** Whether `profileMemory`, `recordShapes`, `withStack` were on. */
  readonly profileMemory: boolean;
  readonly recordShapes: boolean;
  readonly withStack: boolean;
  /** Kernels and GC pauses of the cycle's recorded steps, by start time. */
  events(): readonly ProfilerEvent[];
  /** The recorded steps. */
  steps(): readonly ProfilerStep[];
  keyAverages(options?: KeyAveragesOptions): KeyAverages;
  /** Writes the cycle as a Chrome-trace JSON file (Perfetto, chrome://tracing); `.gz` gzips it. */
  exportChromeTrace(path: string): void;
  /** With `withStack`: collapsed stacks (call path;kernel self-µs) for flamegraph.pl or speedscope. */
  exportStacks(path: string, metric?: StackMetric): void;
}

export class CycleResult implements ProfilerResult {
  constructor(
    readonly cycle: number,
    readonly stepNum: number,
    readonly start: number,
    readonly end: number,
    readonly profileMemory: boolean,
    readonly recordShapes: boolean,
    readonly withStack: boolean,
    private readonly eventList: readonly ProfilerEvent[],
    private readonly stepList: readonly ProfilerStep[],
  ) {}

  events(): readonly ProfilerEvent[] {
    return this.eventList;
  }

  steps(): readonly ProfilerStep[] {
    return this.stepList;
  }

  keyAverages(options?: KeyAveragesOptions): KeyAverages {
    if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError(`keyAverages: options must be an object like { groupByInputShape }; got ${String(options)}`);
    if (options?.groupByInputShape === true && !this.recordShapes) throw new Error('keyAverages: groupByInputShape needs profile({ recordShapes: true })');
    if ((options?.groupByStackN ?? 0) > 0 && !this.withStack) throw new Error('keyAverages: groupByStackN needs profile({ withStack: true })');
    return KeyAverages.ofEvents(this.eventList, options, this.profileMemory);
  }

  exportChromeTrace(path: string): void {
    writeChromeTrace(this, path);
  }

  exportStacks(path: string, metric?: StackMetric): void {
    if (!this.withStack) throw new Error('exportStacks: needs profile({ withStack: true })');
    writeStacks(this.eventList, path, metric);
  }
}
