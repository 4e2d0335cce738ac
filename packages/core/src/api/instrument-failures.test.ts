import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_VARIANTS, instrument } from './instrument.js';
import { dftFn } from './dft-fn.js';
import { finalize, initializeLog } from './lifecycle.js';
import { readTrace, tempDir, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';

// Every way a traced call, iterator, region or decorator can fail: the user's exception reaches
// the user unchanged, the span is written, the trace stays valid (checked once, at the end).
let file = '';
const checks: ((t: Trace) => void)[] = [];
const later = (f: (t: Trace) => void) => checks.push(f);

beforeAll(() => {
  const dir = tempDir();
  file = initializeLog({ enable: true, logFile: join(dir, 'failures'), dataDir: join(dir, 'none'), compression: false }).file!;
});

afterAll(() => {
  finalize();
  const trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  for (const c of checks) c(trace);
});

const named = (t: Trace, name: string, cat?: string): TraceEvent[] => t.complete.filter((e) => e.name === name && (cat === undefined || e.cat === cat));

/** What `f` threw (or the rejection of what it returned). */
async function caught(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('variants', () => {
  it('keys args that JSON cannot hold (bigint, a cycle, a throwing getter) to one cached variant each', () => {
    const fwd = instrument('variants', 'forward');
    const cyc: Record<string, unknown> = { a: 1 };
    cyc.self = cyc;
    const bad = { get boom(): number { throw new Error('getter'); } };
    for (const args of [{ n: 1n }, { big: 2n ** 70n }, { cyc }, { bad }]) {
      const first = fwd.variant({ args: args as never });
      for (let i = 0; i < 2000; i++) expect(fwd.variant({ args: args as never })).toBe(first);
    }
    const f = fwd.variant({ args: { n: 1n } }).wrap(() => 'ok');
    expect(f()).toBe('ok');
    later((t) => expect(named(t, 'forward', 'variants').map((e) => e.args.n)).toEqual([1]));
  });

  it('keeps at most MAX_VARIANTS per instrument when every call has new args; later ones are still current', () => {
    const step = instrument('variants', 'step');
    const early = step.variant({ step: 0 });
    for (let i = 1; i < MAX_VARIANTS + 500; i++) step.variant({ step: i });
    expect(step.variant({ step: 0 })).toBe(early); // cached ones stay
    const late = step.variant({ step: MAX_VARIANTS + 10 });
    expect(step.variant({ step: MAX_VARIANTS + 10 })).not.toBe(late); // past the bound: made afresh, not kept
    step.update({ epoch: 3 });
    const f = step.variant({ step: MAX_VARIANTS + 20 }).wrap(() => 1);
    f();
    later((t) => expect(named(t, 'step', 'variants').map((e) => [e.args.epoch, e.args.step])).toEqual([[3, MAX_VARIANTS + 20]]));
  });
});

describe('iterators', () => {
  it('writes the wait of an async next() that rejects, with the error, and returns its lane', async () => {
    const d = instrument('aiter', 'loader');
    const boom = new Error('disk gone');
    let returned = 0;
    const failing = (): AsyncIterable<number> => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(boom),
        return: async () => {
          returned++;
          return { done: true, value: undefined };
        },
      }),
    });
    for (let k = 0; k < 50; k++) {
      const got = await caught(async () => {
        for await (const _ of d.iter(failing())) void _;
      });
      expect(got).toBe(boom);
    }
    expect(returned).toBe(0); // as `for await`: a source whose next() rejected is not asked to return
    later((t) => {
      const waits = named(t, 'loader.iter', 'aiter');
      expect(waits).toHaveLength(50);
      expect(waits[0]!.args).toMatchObject({ step: 1, error: 'Error: disk gone' });
      // Each failure gave its lane back: the 50 waits share the few lanes of sequential async work.
      expect(new Set(waits.map((e) => e.tid)).size).toBeLessThanOrEqual(2);
    });
  });

  it('writes the wait of a sync next() that throws, with the error; the item before it is complete', () => {
    const d = instrument('siter', 'gen');
    const boom = new RangeError('bad shard');
    function* src() {
      yield 1;
      throw boom;
    }
    const seen: number[] = [];
    let got: unknown;
    try {
      for (const v of d.iter(src())) seen.push(v);
    } catch (e) {
      got = e;
    }
    expect(got).toBe(boom);
    expect(seen).toEqual([1]);
    later((t) => {
      expect(named(t, 'gen.iter', 'siter').map((e) => e.args)).toMatchObject([{ step: 1 }, { step: 2, error: 'RangeError: bad shard' }]);
      expect(named(t, 'gen.yield', 'siter')).toHaveLength(1);
    });
  });

  for (const kind of ['sync', 'async'] as const) {
    it(`${kind}: a loop body that throws, return() and throw() close the spans, return the source, and hand the user's error back`, async () => {
      const d = instrument(`${kind}-close`, 'items');
      const closed: string[] = [];
      const source = (tag: string) =>
        kind === 'sync'
          ? (function* () {
              try {
                yield 1;
                yield 2;
              } finally {
                closed.push(tag);
              }
            })()
          : (async function* () {
              try {
                yield 1;
                yield 2;
              } finally {
                closed.push(tag);
              }
            })();
      const it = (tag: string) => d.iter(source(tag) as never) as Generator<number> & AsyncGenerator<number>;
      const mine = new TypeError('mine');
      // A body that throws inside for-of / for await.
      expect(
        await caught(async () => {
          if (kind === 'sync') for (const _ of it('body')) throw mine;
          else for await (const _ of it('body')) throw mine;
        }),
      ).toBe(mine);
      // return() mid-way.
      const r = it('return');
      await r.next();
      expect(await r.return(undefined)).toEqual({ done: true, value: undefined });
      // throw() mid-way: the user's error comes back out, unchanged.
      const th = it('throw');
      await th.next();
      expect(await caught(() => th.throw(mine))).toBe(mine);
      expect(closed).toEqual(['body', 'return', 'throw']);
      later((t) => {
        expect(named(t, 'items.iter', `${kind}-close`)).toHaveLength(3);
        expect(named(t, 'items.yield', `${kind}-close`)).toHaveLength(3);
      });
    });
  }
});

describe('calls, regions and decorators', () => {
  it('hands back the thrown or rejected error of a traced function and writes its event', async () => {
    const d = instrument('calls', 'f');
    const e1 = new Error('sync');
    const e2 = new Error('async');
    const sync = d.wrap(() => {
      throw e1;
    }, 'sync');
    const asyncFn = d.wrap(async () => {
      await null;
      throw e2;
    }, 'async');
    const promiseFn = d.wrap(() => Promise.reject(e2), 'promise');
    expect(await caught(sync)).toBe(e1);
    expect(await caught(asyncFn)).toBe(e2);
    expect(await caught(promiseFn)).toBe(e2);
    expect(await caught(() => d.run(() => { throw e1; }))).toBe(e1);
    expect(await caught(() => d.run(async () => { throw e2; }))).toBe(e2);
    later((t) => {
      expect(named(t, 'sync', 'calls')).toHaveLength(1);
      expect(named(t, 'async', 'calls')).toHaveLength(1);
      expect(named(t, 'promise', 'calls')).toHaveLength(1);
      expect(named(t, 'f', 'calls')).toHaveLength(2);
    });
  });

  it('a name function that throws or returns no string leaves the call alone', () => {
    const d = instrument('names', 'fallback');
    const f = d.wrap(function work(x: number) {
      return x + 1;
    }, () => {
      throw new Error('name');
    });
    const g = d.wrap(() => 2, (() => 42) as never);
    expect(f(1)).toBe(2);
    expect(g()).toBe(2);
    later((t) => expect(named(t, 'work', 'names').length + named(t, 'fallback', 'names').length).toBe(2));
  });

  it('regions whose args throw when read are written with an args_error note', () => {
    const d = instrument('regions', 'r');
    const bad = { get x(): number { throw new Error('getter'); } };
    const r = d.start({ args: bad as never });
    r.stop(bad as never);
    const s = d.start({ args: { ok: 1 } });
    s.stop(bad as never);
    later((t) => {
      const ev = named(t, 'r', 'regions');
      expect(ev).toHaveLength(2);
      for (const e of ev) expect(e.args.args_error).toBe('the args could not be read');
      expect(ev[1]!.args.ok).toBe(1);
    });
  });

  it('decorated methods and constructors that throw hand the error back and write their event', () => {
    const d = dftFn('decorated', 'ctor');
    const mine = new Error('from the method');
    class Model {
      predict(): number {
        throw mine;
      }
    }
    const desc = Object.getOwnPropertyDescriptor(Model.prototype, 'predict')!;
    Object.defineProperty(Model.prototype, 'predict', d.log(Model.prototype, 'predict', desc));
    const Failing = d.logInit(
      class Failing {
        constructor() {
          throw mine;
        }
      },
    );
    let got: unknown;
    try {
      new Model().predict();
    } catch (e) {
      got = e;
    }
    expect(got).toBe(mine);
    expect(() => new Failing()).toThrow(mine);
    later((t) => {
      expect(named(t, 'Model.predict', 'decorated')).toHaveLength(1);
      expect(named(t, 'Failing.constructor', 'decorated')).toHaveLength(1);
    });
  });
});
