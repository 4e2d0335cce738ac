import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrument } from './instrument.js';
import { finalize, initializeLog } from './lifecycle.js';
import { jsonArg } from '../recording/json-arg.js';
import { readTrace, tempDir, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';

// One tracer for the file (each vitest file runs in its own process); the trace is read at the end.
let file = '';
const checks: ((t: Trace) => void)[] = [];
const later = (f: (t: Trace) => void) => checks.push(f);

beforeAll(() => {
  const dir = tempDir();
  file = initializeLog({ enable: true, logFile: join(dir, 'instrument'), dataDir: join(dir, 'none'), compression: false }).file!;
});

afterAll(() => {
  finalize();
  const trace = readTrace(file);
  expect(traceProblems(trace)).toEqual([]);
  for (const c of checks) c(trace);
});

const inCat = (t: Trace, cat: string): TraceEvent[] => t.complete.filter((e) => e.cat === cat);
const user = (e: TraceEvent) => Object.fromEntries(Object.entries(e.args ?? {}).filter(([k]) => k !== 'hhash' && k !== 'level' && k !== 'p_idx'));

describe('instrument', () => {
  it('names events after the instrument, with derive/child cached and the subtree following enable, disable and update', () => {
    const root = instrument('tree', 'root', { iter: { hold: 'block', counter: 'count' } });
    const a = root.child('a');
    const ax = a.derive('x');
    expect(root.child('a')).toBe(a);
    expect(a.derive('x')).toBe(ax);
    expect(ax.name).toBe('a.x');
    expect(ax.cat).toBe('tree');
    expect(ax.iterNames).toEqual({ wait: 'iter', hold: 'block', counter: 'count' });
    const fa = a.wrap(() => 1);
    const fx = ax.wrap(() => 2);
    root.update({ epoch: 1, step: 2, imageIdx: 3, imageSize: 4.5, args: { run: 'r' } });
    expect(fa() + fx()).toBe(3);
    a.disable();
    expect(ax.enabled).toBe(false);
    root.update({ epoch: 9 }); // disabled instruments keep their values (pydftracer)
    fa();
    fx();
    a.enable();
    fx();
    later((t) => {
      const ev = inCat(t, 'tree');
      expect(ev.map((e) => e.name)).toEqual(['a', 'a.x', 'a.x']);
      expect(user(ev[0]!)).toEqual({ epoch: 1, step: 2, image_idx: 3, image_size: 4.5, run: 'r' });
      expect(user(ev[2]!).epoch).toBe(1);
    });
  });

  it('keeps an explicit variant enable against its ancestors, and caches variants by options', () => {
    const cat = instrument('variant', 'cat');
    const child = cat.child('c');
    const on = child.variant({ enable: true, epoch: 7 });
    expect(child.variant({ enable: true, epoch: 7 })).toBe(on);
    expect(child.variant({ enable: false })).not.toBe(on);
    const plain = child.variant({ step: 3 });
    const f = on.wrap(() => 'on');
    const g = plain.wrap(() => 'plain');
    cat.disable();
    expect(on.enabled).toBe(true);
    expect(plain.enabled).toBe(false);
    expect(f() + g()).toBe('onplain');
    cat.update({ step: 11 }); // reaches the enabled variant under a disabled parent
    f();
    later((t) => {
      const ev = inCat(t, 'variant');
      expect(ev.map((e) => [e.name, e.args!.epoch, e.args!.step])).toEqual([
        ['c', 7, undefined],
        ['c', 7, 11],
      ]);
    });
  });

  it('runs hooks: args from arguments and result, and a wait (sync or promise) before the event closes', async () => {
    const order: string[] = [];
    const ins = instrument('hooks', 'op', {
      hooks: {
        begin: (a) => (a[0] as number) * 10,
        args: (a, result, state) => ({ in: a[0] as number, out: result as number, state: state as number }),
        settle: (result) => {
          order.push(`settle ${String(result)}`);
          if (result === 3) return new Promise<void>((r) => setTimeout(() => (order.push('waited'), r()), 20));
        },
      },
    });
    const inner = instrument('hooks', 'inner').wrap(() => 0);
    const sync = ins.wrap((x: number) => x + inner());
    const asyncFn = ins.wrap(async (x: number) => {
      await new Promise((r) => setTimeout(r, 5));
      return x + inner() + 1;
    });
    expect(sync(1)).toBe(1);
    expect(await asyncFn(1)).toBe(2);
    expect(sync(3)).toBe(3); // returns before its wait ends
    order.push('returned');
    await new Promise((r) => setTimeout(r, 40));
    const broken = instrument('hooks', 'broken', {
      hooks: {
        args: () => {
          throw new Error('hook bug');
        },
      },
    }).wrap(() => 'kept');
    expect(broken()).toBe('kept');
    expect(order).toEqual(['settle 1', 'settle 2', 'settle 3', 'returned', 'waited']);
    later((t) => {
      const ops = inCat(t, 'hooks').filter((e) => e.name === 'op');
      expect(ops.map(user)).toEqual([
        { in: 1, out: 1, state: 10 },
        { in: 1, out: 2, state: 10 },
        { in: 3, out: 3, state: 30 },
      ]);
      expect(ops[2]!.dur).toBeGreaterThanOrEqual(15_000);
      const inners = inCat(t, 'hooks').filter((e) => e.name === 'inner');
      expect(inners.map((e) => e.args!.p_idx)).toEqual(ops.map((e) => e.id));
      expect(inCat(t, 'hooks').filter((e) => e.name === 'broken')).toHaveLength(1);
    });
  });

  it("writes hook args as { ...instrument args, ...hook args } even when the hook reuses one object; fail runs on throws", async () => {
    const reused: Record<string, unknown> = { out: 0, step: 0 };
    const failed: unknown[] = [];
    const ins = instrument('merged', 'op', {
      epoch: 1,
      step: 2,
      args: { tag: 't' },
      hooks: {
        begin: (a) => a[0],
        args: (a, result) => {
          reused.out = result as number;
          reused.step = (a[0] as number) * 100; // overrides the instrument's step, in its place
          return reused as Record<string, never>;
        },
        settle: (result) => (result === 4 ? new Promise<void>((r) => setTimeout(r, 10)) : undefined),
        fail: (state) => void failed.push(state),
      },
    });
    const f = ins.wrap((x: number) => {
      if (x < 0) throw new Error('negative');
      return x + 1;
    });
    const g = ins.wrap(async (x: number) => {
      if (x < 0) throw new Error('negative');
      return x;
    });
    expect(f(1)).toBe(2);
    expect(f(3)).toBe(4); // waits: its args are copied before the next call reuses the object
    expect(f(5)).toBe(6);
    expect(() => f(-1)).toThrow('negative');
    await expect(g(-2)).rejects.toThrow('negative');
    expect(await g(7)).toBe(7);
    const shape = jsonArg([2, 3]);
    const j = instrument('merged', 'json', { hooks: { args: () => ({ out_shape: shape }) } }).wrap(() => 0);
    j();
    j();
    expect(JSON.stringify({ s: shape })).toBe('{"s":[2,3]}');
    await new Promise((r) => setTimeout(r, 30));
    expect(failed).toEqual([-1, -2]);
    later((t) => {
      const ops = inCat(t, 'merged').filter((e) => e.name === 'op');
      const keyed = (e: TraceEvent) => Object.entries(user(e));
      expect(ops).toHaveLength(6);
      const byOut = new Map(ops.map((e) => [user(e).out, keyed(e)]));
      expect(byOut.get(2)).toEqual([['epoch', 1], ['step', 100], ['tag', 't'], ['out', 2]]);
      expect(byOut.get(4)).toEqual([['epoch', 1], ['step', 300], ['tag', 't'], ['out', 4]]);
      expect(byOut.get(6)).toEqual([['epoch', 1], ['step', 500], ['tag', 't'], ['out', 6]]);
      expect(byOut.get(7)).toEqual([['epoch', 1], ['step', 700], ['tag', 't'], ['out', 7]]);
      expect(ops.filter((e) => user(e).out === undefined).map(keyed)).toEqual([
        [['epoch', 1], ['step', 2], ['tag', 't']],
        [['epoch', 1], ['step', 2], ['tag', 't']],
      ]);
      const js = inCat(t, 'merged').filter((e) => e.name === 'json');
      expect(js.map(user)).toEqual([{ out_shape: [2, 3] }, { out_shape: [2, 3] }]);
    });
  });

  it('decorates methods (TC39 and legacy), getters and classes under the instrument name', () => {
    const ins = instrument('deco', 'item');
    const d = ins.decorate.bind(ins);
    class Loader {
      constructor(readonly base: number) {}
      @d
      get(i: number) {
        return this.base + i;
      }
    }
    const Traced = d(Loader) as typeof Loader;
    const l = new Traced(10);
    expect(l).toBeInstanceOf(Loader);
    expect(l.get(1)).toBe(11);
    const proto = { twice(x: number) { return 2 * x; } };
    const desc = Object.getOwnPropertyDescriptor(proto, 'twice')!;
    Object.defineProperty(proto, 'twice', ins.decorate(proto, 'twice', desc, 'legacy'));
    expect(proto.twice(4)).toBe(8);
    expect(() => ins.decorate(5)).toThrow(/expected a function, method or class/);
    later((t) => expect(inCat(t, 'deco').map((e) => e.name)).toEqual(['item', 'item', 'legacy']));
  });

  it('writes metadata regions as CM <name>.start/.end, and honours include switches and counter names on iterables', () => {
    const epoch = instrument('loop', 'epoch', { iter: { hold: 'block', counter: 'count' } });
    const r = epoch.start({ metadata: true });
    r.stop();
    r.stop(); // once only
    const body = instrument('loop', 'body').wrap(() => 0);
    for (const _ of epoch.iter([1, 2])) body();
    for (const _ of epoch.iter([1], { includeIter: false, name: 'noiter' })) body();
    for (const _ of epoch.iter([1], { includeBlock: false, name: 'noblock', counter: 'n' })) body();
    later((t) => {
      const cm = t.meta.filter((m) => m.name === 'CM').map((m) => m.args!.name);
      expect(cm).toEqual(['epoch.start', 'epoch.end']);
      expect(Number(t.meta.find((m) => m.args!.name === 'epoch.end')!.args!.value)).toBeGreaterThan(1e15);
      const ev = inCat(t, 'loop');
      expect(ev.filter((e) => e.name !== 'body').map((e) => [e.name, user(e)])).toEqual([
        ['epoch.iter', { count: 1 }],
        ['epoch.block', { count: 1 }],
        ['epoch.iter', { count: 2 }],
        ['epoch.block', { count: 2 }],
        ['noiter.block', { count: 1 }],
        ['noblock.iter', { n: 1 }],
      ]);
      const blocks = ev.filter((e) => e.name.endsWith('.block'));
      for (const b of blocks) expect(ev.filter((e) => e.name === 'body' && e.args!.p_idx === b.id)).toHaveLength(1);
    });
  });

  it('run(fn, args, keep) drops the span when keep says the result was no event', async () => {
    const fetch = instrument('keep', 'fetch');
    const src = [1, 2];
    const next = () => Promise.resolve(src.length > 0 ? { done: false, value: src.shift() } : { done: true, value: undefined });
    const got: unknown[] = [];
    for (;;) {
      const r = await fetch.run(next, { from: 'it' }, (x) => !x.done);
      if (r.done) break;
      got.push(r.value);
    }
    expect(got).toEqual([1, 2]);
    expect(fetch.run(() => 'sync', undefined, () => false)).toBe('sync');
    later((t) => expect(inCat(t, 'keep').map((e) => [e.name, e.args!.from])).toEqual([['fetch', 'it'], ['fetch', 'it']]));
  });

  it('rejects bad arguments with errors naming them', () => {
    expect(() => instrument('', 'x')).toThrow(/cat must be a non-empty string/);
    expect(() => instrument('c', '')).toThrow(/name must be a non-empty string/);
    expect(() => instrument('c', 'x').derive('')).toThrow(/derive: name/);
    expect(() => instrument('c', 'x').update({ step: 'a' as unknown as number })).toThrow(/step must be a finite number; got string/);
    expect(() => instrument('c', 'x').update({ step: NaN })).toThrow(/update: step must be a finite number; got NaN/);
    expect(() => instrument('c', 'x').update({ epoch: Infinity })).toThrow(/update: epoch must be a finite number; got Infinity/);
    expect(() => instrument('c', 'x').variant(null as never)).toThrow(/variant: options/);
  });
});
