import { warnOnce } from '@dftracer/core';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DeviceType } from './activity.js';
import type { ProfilerResult } from './result.js';

const HOST_TID = 1;
const GC_TID = 2;

interface TraceEvent {
  name: string;
  ph: 'X' | 'M';
  cat?: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

/**
 * A cycle as a standalone Chrome trace (the JSON object form, as torch's export_chrome_trace):
 * steps as `ProfilerStep#N` with their kernels nested inside on one track, GC pauses on a second.
 */
export function chromeTrace(result: ProfilerResult): { schemaVersion: number; displayTimeUnit: string; traceEvents: TraceEvent[] } {
  const pid = process.pid;
  const ev: TraceEvent[] = [
    { name: 'process_name', ph: 'M', pid, tid: 0, args: { name: `tfjs profiler (pid ${pid})` } },
    { name: 'thread_name', ph: 'M', pid, tid: HOST_TID, args: { name: 'main thread: steps and kernels' } },
    { name: 'thread_name', ph: 'M', pid, tid: GC_TID, args: { name: 'garbage collector' } },
  ];
  for (const s of result.steps()) {
    ev.push({
      name: `ProfilerStep#${s.step}`, ph: 'X', cat: 'user_annotation', pid, tid: HOST_TID, ts: s.start, dur: s.duration,
      args: { 'Event loop utilization': s.eventLoopUtilization, 'Event loop delay max (us)': s.eventLoopDelayMaxUs },
    });
  }
  for (const e of result.events()) {
    const args: Record<string, unknown> = { backend: e.backend, step: e.step, grad_enabled: e.gradEnabled ? 1 : 0 };
    if (result.recordShapes && e.kind === 'kernel') {
      args['Input Dims'] = e.inputShapes;
      args['Input type'] = e.inputDtypes;
    }
    if (result.profileMemory && e.kind === 'kernel') {
      args['Bytes added'] = e.bytesAdded;
      args['Total bytes'] = e.totalBytes;
      args['Tensors added'] = e.tensorsAdded;
    }
    if (e.stack.length > 0) args['Call stack'] = e.stack.join(';\n');
    const cat = e.kind !== 'kernel' ? e.kind : e.device === DeviceType.GPU ? 'kernel' : 'cpu_op';
    ev.push({ name: e.name, ph: 'X', cat, pid, tid: e.kind === 'gc' ? GC_TID : HOST_TID, ts: e.start, dur: e.duration, args });
  }
  return { schemaVersion: 1, displayTimeUnit: 'ms', traceEvents: ev };
}

export function writeChromeTrace(result: ProfilerResult, path: string): void {
  if (typeof path !== 'string' || path === '') throw new TypeError(`exportChromeTrace: path must be a non-empty string; got ${String(path)}`);
  const text = JSON.stringify(chromeTrace(result));
  writeFileSync(path, path.endsWith('.gz') ? gzipSync(text) : text);
}

/**
 * An `onTraceReady` handler writing each cycle to `<dirName>/<workerName>.<ms>.pt.trace.json[.gz]`
 * (torch's tensorboard_trace_handler naming, so TensorBoard's profiler plugin and Perfetto open it).
 */
export function tensorboardTraceHandler(dirName: string, workerName?: string, useGzip = false): (result: ProfilerResult) => void {
  if (typeof dirName !== 'string' || dirName === '') throw new TypeError(`tensorboardTraceHandler: dirName must be a non-empty string; got ${String(dirName)}`);
  if (workerName !== undefined && (typeof workerName !== 'string' || workerName === '' || /[\\/]/.test(workerName))) {
    throw new TypeError(`tensorboardTraceHandler: workerName must be a file name without slashes; got ${String(workerName)}`);
  }
  const worker = workerName ?? `${hostname()}_${process.pid}`;
  return function tensorboardHandler(result: ProfilerResult): void {
    try {
      mkdirSync(dirName, { recursive: true });
      let ms = Date.now();
      const file = (t: number): string => join(dirName, `${worker}.${t}.pt.trace.json${useGzip ? '.gz' : ''}`);
      // Two cycles handed over within one millisecond still get a file each.
      while (existsSync(file(ms))) ms++;
      writeChromeTrace(result, file(ms));
    } catch (err) {
      // Runs inside the program's step(): a full disk or a bad folder must not stop its training.
      warnOnce(`profiler:tensorboard:${worker}:${dirName}`, `@dftracer/profiler tensorboardTraceHandler: ${err instanceof Error ? err.message : String(err)}; cycles are not written (reported once)`);
    }
  };
}
