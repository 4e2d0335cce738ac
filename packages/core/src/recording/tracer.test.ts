import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTracer } from '../api/access.js';
import { dftFn } from '../api/dft-fn.js';
import { finalize, initializeLog } from '../api/lifecycle.js';
import { readTrace, tempDir, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';
import type { EventShape, Tracer } from '../types.js';

// One tracer for the file (each vitest file runs in its own process); the trace is read at the end.
let file = '';
let tracer: Tracer;
const checks: ((t: Trace) => void)[] = [];

beforeAll(() => {
  const dir = tempDir();
  file = initializeLog({ enable: true, logFile: join(dir, 'shapes'), dataDir: join(dir, 'none'), compression: false }).file!;
  tracer = getTracer()!;
});

afterAll(() => {
  finalize();
  const trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  for (const c of checks) c(trace);
});

const named = (t: Trace, name: string): TraceEvent[] => t.complete.filter((e) => e.name === name);
/** An event's line without what differs between two events written at different times. */
const shapeOf = (t: Trace, e: TraceEvent): string => t.lines.find((l) => l.startsWith(`{"id":${e.id},`))!.replace(/^\{"id":\d+,"name":"\w+"/, '').replace(/"p_idx":-?\d+/, '');

describe('Tracer.shape / emitShaped', () => {
  it('writes the line emit writes for the same args object, key renaming and string interning included', () => {
    const s = tracer.shape('viaShape', 'unit', ['file', 'level', 'ok', 'size']);
    tracer.emitShaped(s, 1_763_870_000_000_000, 7, 'abc"def', 3, true, 4096);
    tracer.emitShaped(s, 1_763_870_000_000_000, 7, 'abc"def', 3, true, 4096); // the interned string again
    tracer.emit('viaEmit_', 'unit', 1_763_870_000_000_000, 7, { file: 'abc"def', level: 3, ok: true, size: 4096 });
    checks.push((t) => {
      const [a, b] = named(t, 'viaShape');
      const [c] = named(t, 'viaEmit_');
      expect(a!.args).toMatchObject({ file: 'abc"def', user_level: 3, ok: true, size: 4096, level: 1 });
      expect(shapeOf(t, a!)).toBe(shapeOf(t, c!));
      expect(shapeOf(t, b!)).toBe(shapeOf(t, c!));
    });
  });

  it('writes a value not given as null (as emit writes undefined), and nests like emit', () => {
    const s = tracer.shape('partial', 'unit', ['count', 'ret']);
    const parent = dftFn('unit', 'outer');
    parent.log(() => tracer.emitShaped(s, tracer.now(), 2, 12))();
    checks.push((t) => {
      const [e] = named(t, 'partial');
      const [outer] = named(t, 'outer');
      expect(e!.args).toMatchObject({ count: 12, ret: null });
      expect(e!.args!.p_idx).toBe(outer!.id);
      expect(e!.args!.level).toBe((outer!.args!.level as number) + 1);
    });
  });

  it('gives the same handle for the same name, category and keys', () => {
    const a = tracer.shape('same', 'unit', ['x', 'y']);
    expect(tracer.shape('same', 'unit', ['x', 'y'])).toBe(a);
    expect(tracer.shape('same', 'unit', ['y', 'x'])).not.toBe(a);
    expect(tracer.shape('same', 'other', ['x', 'y'])).not.toBe(a);
  });

  it('rejects bad keys and shapes it did not make, naming the argument', () => {
    expect(() => tracer.shape('x', 'unit', ['a', 'b', 'c', 'd', 'e'])).toThrow(/keys must be an array of at most 4 distinct strings/);
    expect(() => tracer.shape('x', 'unit', ['a', 'a'])).toThrow(/distinct/);
    expect(() => tracer.shape('x', 'unit', [1 as unknown as string])).toThrow(/keys must be/);
    expect(() => tracer.shape('x', 'unit', 'abc' as unknown as string[])).toThrow(/keys must be/);
    expect(() => tracer.emitShaped(9999 as EventShape, 0, 0)).toThrow(/emitShaped: 9999 is not a shape of this tracer/);
    expect(() => tracer.emitShaped(-1 as EventShape, 0, 0)).toThrow(RangeError);
  });
});

describe('Tracer.reserve / track / emitOn', () => {
  it('writes a reserved event later with the id and parent it had when reserved, not as the context', () => {
    const outer = dftFn('unit', 'reserveOuter');
    let held: ReturnType<Tracer['reserve']> | undefined;
    outer.log(() => {
      held = tracer.reserve();
      tracer.emit('afterReserve', 'unit', tracer.now(), 1); // still a child of the outer span
    })();
    tracer.exit(held!, 'reserved', 'unit', { device_us: 42 }, held!.start + 5);
    checks.push((t) => {
      const [o] = named(t, 'reserveOuter');
      const [r] = named(t, 'reserved');
      const [a] = named(t, 'afterReserve');
      expect(r!.id).toBe(held!.id);
      expect(r!.args).toMatchObject({ p_idx: o!.id, level: 2, device_us: 42 });
      expect(r!.dur).toBe(5);
      expect(r!.tid).toBe(o!.tid);
      expect(a!.args!.p_idx).toBe(o!.id);
    });
  });

  it('gives one named tid per track name and writes top-level events there', () => {
    const gpu = tracer.track('webgpu:0');
    expect(tracer.track('webgpu:0')).toBe(gpu);
    const other = tracer.track('webgpu:1');
    expect(other).not.toBe(gpu);
    dftFn('unit', 'launcher').log(() => tracer.emitOn(gpu, 'onTrack', 'unit', tracer.now(), 3, { device_us: 3 }))();
    expect(() => tracer.track('')).toThrow(/track: name must be a non-empty string/);
    checks.push((t) => {
      const [e] = named(t, 'onTrack');
      expect(e!.tid).toBe(gpu);
      expect(e!.args).toMatchObject({ level: 1, p_idx: -1, device_us: 3 });
      const names = t.meta.filter((m) => m.name === 'thread_name' && m.tid === gpu);
      expect(names.map((m) => m.args?.name)).toEqual(['webgpu:0']);
    });
  });
});
