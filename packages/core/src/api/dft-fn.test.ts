import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dftFn, Profile } from './dft-fn.js';
import type { ArgValue } from '../types.js';
import { finalize, initializeLog } from './lifecycle.js';
import { readTrace, tempDir, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';

// One tracer for the file (each vitest file runs in its own process); the trace is read at the end.
let file = '';
let trace: Trace;
const checks: ((t: Trace) => void)[] = [];
const later = (f: (t: Trace) => void) => checks.push(f);

beforeAll(() => {
  const dir = tempDir();
  const log = initializeLog({ enable: true, logFile: join(dir, 'dftfn'), dataDir: join(dir, 'none'), compression: false });
  file = log.file!;
});

afterAll(() => {
  finalize();
  trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  for (const c of checks) c(trace);
});

const named = (t: Trace, name: string): TraceEvent[] => t.complete.filter((e) => e.name === name);
const childrenOf = (t: Trace, e: TraceEvent) => t.complete.filter((c) => c.args?.p_idx === e.id).map((c) => c.name);

describe('dftFn', () => {
  it('wraps functions keeping name, length, this, results and throws', () => {
    const d = dftFn('unit', 'wrap');
    const obj = {
      k: 3,
      f: d.log(function addK(this: { k: number }, a: number, b: number) {
        return a + b + this.k;
      }),
    };
    expect(obj.f.name).toBe('addK');
    expect(obj.f.length).toBe(2);
    expect(obj.f(1, 2)).toBe(6);
    // A binding of another name: esbuild renames a function expression that shadows its const.
    const failing = d.log(function boom() {
      throw new RangeError('x');
    });
    expect(() => failing()).toThrow(RangeError);
    later((t) => {
      expect(named(t, 'addK')).toHaveLength(1);
      expect(named(t, 'boom')).toHaveLength(1);
      expect(named(t, 'addK')[0]!.cat).toBe('unit');
    });
  });

  it('times async functions to settlement and nests their children across await', async () => {
    const d = dftFn('unit');
    const child = d.log(function asyncChild() {
      return 1;
    });
    const parent = d.log(async function asyncParent(ms: number) {
      child();
      await new Promise((r) => setTimeout(r, ms));
      return child() + 1;
    });
    const rejects = d.log(async function asyncRejects() {
      await Promise.resolve();
      throw new Error('nope');
    });
    expect(await Promise.all([parent(15), parent(5)])).toEqual([2, 2]);
    await expect(rejects()).rejects.toThrow('nope');
    later((t) => {
      const ps = named(t, 'asyncParent');
      expect(ps).toHaveLength(2);
      for (const p of ps) {
        expect(p.dur).toBeGreaterThanOrEqual(4000);
        expect(childrenOf(t, p)).toEqual(['asyncChild', 'asyncChild']);
      }
      expect(ps[0]!.tid).not.toBe(ps[1]!.tid);
      expect(named(t, 'asyncRejects')).toHaveLength(1);
    });
  });

  it('keeps an own __proto__ key of update({ args }) and of region args as an arg, prototypes untouched', () => {
    const d = dftFn('unit', 'protoArgs');
    d.update({ args: JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}') as Record<string, ArgValue> });
    d.log(() => 0)();
    d.start(JSON.parse('{"__proto__": 7, "b": 2}') as Record<string, ArgValue>).stop();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    later((t) => {
      const [call, region] = named(t, 'protoArgs');
      const own = (e: TraceEvent) => Object.entries(e.args!).filter(([k]) => k !== 'hhash' && k !== 'level' && k !== 'p_idx');
      expect(own(call!)).toEqual([['__proto__', { polluted: 1 }], ['a', 1]]);
      expect(own(region!)).toEqual([['__proto__', 7], ['a', 1], ['b', 2]]); // the defaults, then the region's
      expect(Object.getPrototypeOf(call!.args)).toBe(Object.prototype);
    });
  });

  it('decorates methods (TC39) as Class.method, and records epoch/step passed by the call over defaults', () => {
    const d = Profile('unit', 'model');
    d.update({ epoch: 1, step: 1, args: { run: 'a' } });
    class Model {
      @d.log
      forward(x: number, epoch: number, step = 7) {
        return x * epoch * step;
      }
      @d.log
      static create() {
        return new Model();
      }
    }
    expect(Model.create().forward(2, 5)).toBe(70);
    new Model().forward(1, 2, 3);
    later((t) => {
      // Named from this.constructor.name at run time (the test transform may rename the class).
      const f = named(t, `${Model.name}.forward`);
      expect(f.map((e) => [e.args!.epoch, e.args!.step, e.args!.run])).toEqual([
        [5, 7, 'a'],
        [2, 3, 'a'],
      ]);
      expect(named(t, `${Model.name}.create`)).toHaveLength(1);
    });
  });

  it('traces construction with logInit, keeping class identity', () => {
    const d = dftFn('unit');
    @d.logInit
    class Loader {
      constructor(readonly n: number) {}
    }
    const Plain = d.logInit(
      class Plain {
        v = 1;
      },
    );
    const l = new Loader(3);
    expect(l).toBeInstanceOf(Loader);
    expect(l.n).toBe(3);
    expect(Loader.name).toBe('Loader');
    expect(new Plain().v).toBe(1);
    later((t) => {
      expect(named(t, `${Loader.name}.constructor`)).toHaveLength(1);
      expect(named(t, `${Plain.name}.constructor`)).toHaveLength(1);
    });
  });

  it('traces regions with start/stop, using and run, nesting code run inside', async () => {
    const d = dftFn('unit', 'region');
    const inner = dftFn('unit').log(function inRegion() {
      return 0;
    });
    const r = d.start({ phase: 'a' });
    inner();
    r.stop();
    {
      using _r = d.start({ phase: 'b' });
      inner();
    }
    d.start({ phase: 'c' });
    d.stop();
    expect(d.run(() => inner() + 5)).toBe(5);
    expect(
      await d.run(async () => {
        await new Promise((res) => setTimeout(res, 2));
        return inner() + 6;
      }),
    ).toBe(6);
    later((t) => {
      const regions = named(t, 'region');
      expect(regions.map((e) => e.args!.phase ?? 'run')).toEqual(['a', 'b', 'c', 'run', 'run']);
      expect(regions.map((e) => childrenOf(t, e))).toEqual([['inRegion'], ['inRegion'], [], ['inRegion'], ['inRegion']]);
    });
  });

  it('does not leave an unstopped region as the parent of later unrelated code', async () => {
    const d = dftFn('unit', 'leaky');
    const after = dftFn('unit').log(function afterLeak() {
      return 0;
    });
    const open = d.start();
    await Promise.resolve();
    after();
    open.stop();
    later((t) => {
      expect(named(t, 'afterLeak')[0]!.args!.p_idx).not.toBe(named(t, 'leaky')[0]!.id);
    });
  });

  it('traces sync iterables as loop.iter/loop.yield with a 1-based step, including early exit', () => {
    const d = dftFn('unit');
    const body = dftFn('unit').log(function loopBody(v: number) {
      return v;
    });
    let sum = 0;
    for (const v of d.iter([10, 20, 30])) sum += body(v);
    expect(sum).toBe(60);
    let returned = false;
    const gen = (function* () {
      try {
        yield 1;
        yield 2;
      } finally {
        returned = true;
      }
    })();
    for (const v of d.iter(gen, { name: 'early', iterName: 'i' })) if (v === 1) break;
    expect(returned).toBe(true);
    later((t) => {
      expect(named(t, 'loop.iter').map((e) => e.args!.step)).toEqual([1, 2, 3]);
      const ys = named(t, 'loop.yield');
      expect(ys.map((e) => e.args!.step)).toEqual([1, 2, 3]);
      expect(ys.map((e) => childrenOf(t, e))).toEqual([['loopBody'], ['loopBody'], ['loopBody']]);
      expect(named(t, 'early.iter').map((e) => e.args!.i)).toEqual([1]);
    });
  });

  it('traces async iterables, timing the wait for each item', async () => {
    const d = dftFn('unit');
    async function* slow() {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 3));
        yield i;
      }
    }
    const got: number[] = [];
    for await (const v of d.iter(slow(), { name: 'fetch' })) got.push(v);
    expect(got).toEqual([0, 1, 2]);
    later((t) => {
      const waits = named(t, 'fetch.iter');
      expect(waits.map((e) => e.args!.step)).toEqual([1, 2, 3]);
      for (const w of waits) expect(w.dur).toBeGreaterThanOrEqual(2000);
      expect(named(t, 'fetch.yield')).toHaveLength(3);
    });
  });

  it('rejects bad arguments with a clear error', () => {
    expect(() => dftFn('')).toThrow(/cat must be a non-empty string/);
    expect(() => dftFn('c').update({ epoch: '1' as unknown as number })).toThrow(/epoch must be a finite number; got string/);
    expect(() => dftFn('c').iter(5 as unknown as number[])).toThrow(/expected an iterable/);
    expect(() => dftFn('c').log(3 as unknown as () => void)).toThrow(/expected a function/);
  });

  it('returns the function itself when disabled', () => {
    const d = dftFn('unit', 'off', { enable: false });
    const f = () => 1;
    expect(d.log(f)).toBe(f);
    d.run(() => 0);
    d.start().stop();
    later((t) => expect(named(t, 'off')).toHaveLength(0));
  });
});
