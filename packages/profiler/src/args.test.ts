import { join } from 'node:path';
import { tempDir } from '@dftracer/testing';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { collapsedStacks, profile, recordFunction, schedule, tensorboardTraceHandler, traceHandler, type ProfilerResult } from './index.js';
import { tf } from './tfjs.test-util.js';

// Every public function checks its arguments once and names itself and the argument.

let result: ProfilerResult;

beforeAll(async () => {
  await tf.setBackend('cpu');
  await profile({ tf, onTraceReady: (r) => void (result = r) }, () => tf.tidy(() => tf.matMul(tf.ones([2, 2]), tf.ones([2, 2]))));
});

describe('argument checks', () => {
  it('schedule', () => {
    expect(() => schedule(undefined as never)).toThrow(/^schedule: options must be an object/);
    expect(() => schedule({ wait: -1, warmup: 0, active: 1 })).toThrow(/^schedule: wait must be an integer ≥ 0; got -1/);
    expect(() => schedule({ wait: 0, warmup: 0.5, active: 1 })).toThrow(/^schedule: warmup must be an integer/);
    expect(() => schedule({ wait: 0, warmup: 0, active: 0 })).toThrow(/^schedule: active must be an integer ≥ 1/);
    expect(() => schedule({ wait: 0, warmup: 0, active: 1, repeat: NaN })).toThrow(/^schedule: repeat must be/);
  });

  it('profile options', () => {
    expect(() => profile(42 as never)).toThrow(/^profile: options must be an object; got 42/);
    expect(() => profile({ shedule: schedule({ wait: 0, warmup: 0, active: 1 }) } as never)).toThrow(/^profile: unknown option "shedule" \(did you mean schedule\?\); known options: activities, schedule/);
    expect(() => profile({ activities: 'cpu' as never })).toThrow(/^profile: activities must be an array/);
    expect(() => profile({ schedule: 3 as never })).toThrow(/^profile: schedule must be a function/);
    expect(() => profile({ onTraceReady: 'x' as never })).toThrow(/^profile: onTraceReady must be a function/);
    expect(() => profile({ recordShapes: 1 as never })).toThrow(/^profile: recordShapes must be a boolean/);
    expect(() => profile({ deviceTime: 'gpu' as never })).toThrow(/^profile: deviceTime must be/);
    expect(() => profile({ tf: 42 }).start()).toThrow(/^profile: tf must be the tfjs module/);
    expect(() => profile({}, 42 as never)).toThrow(/^profile: the second argument must be a function/);
    const p = profile({ tf, schedule: () => 'SOMETIMES' as never });
    expect(() => p.start()).toThrow(/^profile: schedule\(0\) returned SOMETIMES, not a ProfilerAction/);
  });

  it('traceHandler given something else than a result: says so once, never throws into the program', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(() => traceHandler(42 as never)).not.toThrow();
      expect(() => traceHandler({} as never)).not.toThrow();
      expect(() => traceHandler(null as never)).not.toThrow();
      const said = err.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('traceHandler'));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/traceHandler: result must be the ProfilerResult that onTraceReady receives; got number/);
    } finally {
      err.mockRestore();
    }
  });

  it('recordFunction, tensorboardTraceHandler, collapsedStacks', () => {
    expect(() => recordFunction(42 as never)).toThrow(/^recordFunction: name must be a non-empty string; got 42/);
    expect(() => recordFunction('x', 42 as never)).toThrow(/^recordFunction: fn must be a function/);
    expect(() => tensorboardTraceHandler(42 as never)).toThrow(/^tensorboardTraceHandler: dirName must be a non-empty string/);
    expect(() => collapsedStacks(42 as never)).toThrow(/^collapsedStacks: events must be an array/);
    expect(() => collapsedStacks(result.events(), 'x' as never)).toThrow(/metric must be/);
  });

  it("a result's keyAverages, table and exports", () => {
    expect(() => result.keyAverages(42 as never)).toThrow(/^keyAverages: options must be an object/);
    expect(() => result.keyAverages({ groupByInputShape: true })).toThrow(/^keyAverages: groupByInputShape needs profile\(\{ recordShapes: true \}\)/);
    const ka = result.keyAverages();
    expect(() => ka.table(42 as never)).toThrow(/^table: options must be an object/);
    expect(() => ka.table({ sortBy: 'speed' as never })).toThrow(/^table: sortBy "speed" is not one of/);
    expect(() => ka.table({ rowLimit: 1.5 })).toThrow(/^table: rowLimit must be an integer; got 1.5/);
    expect(() => ka.table({ maxNameColumnWidth: -1 })).toThrow(/^table: maxNameColumnWidth must be an integer ≥ 4; got -1/);
    expect(ka.table({ rowLimit: 1 })).toMatch(/BatchMatMul/);
    expect(() => result.exportChromeTrace(42 as never)).toThrow(/^exportChromeTrace: path must be a non-empty string; got 42/);
    expect(() => result.exportChromeTrace('')).toThrow(/^exportChromeTrace: path must be a non-empty string/);
    expect(() => result.exportStacks(undefined as never)).toThrow(/^exportStacks: needs profile\(\{ withStack/);
    const file = join(tempDir(), 'ok.json');
    result.exportChromeTrace(file);
  });

  it('a profiler used out of order names the method', async () => {
    const p = profile({ tf });
    expect(() => p.step()).toThrow(/^Profiler.step: call start\(\) first/);
    expect(() => p.keyAverages()).toThrow(/^Profiler.keyAverages: no cycle recorded yet/);
    p.start();
    expect(() => p.start()).toThrow(/^Profiler.start: already started/);
    await p.stop();
  });
});
