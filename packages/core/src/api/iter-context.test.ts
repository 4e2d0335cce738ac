// A loop body nests under its iter block across `await`: the block is the async context of the
// code that consumes the iterator (sync and async iteration), an early exit gives that code its
// own context back, closed or not-yet-begun spans are never parents, and a block's args are the
// ones in force when it ends.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrument } from './instrument.js';
import { finalize, initializeLog } from './lifecycle.js';
import { getTracer } from './access.js';
import { readTrace, tempDir, traceProblems, type Trace, type TraceEvent } from '@dftracer/testing';

let file = '';
const checks: ((t: Trace) => void)[] = [];
const later = (f: (t: Trace) => void) => checks.push(f);

beforeAll(() => {
  file = initializeLog({ enable: true, logFile: join(tempDir(), 'ctx'), compression: false, disableIo: true }).file!;
});

afterAll(() => {
  finalize();
  const t = readTrace(file);
  expect(traceProblems(t)).toEqual([]);
  for (const c of checks) c(t);
});

const tick = () => new Promise<void>((r) => setTimeout(r, 1));
const named = (t: Trace, cat: string, name: string): TraceEvent[] => t.complete.filter((e) => e.cat === cat && e.name === name);
const parentOf = (t: Trace, e: TraceEvent): string => {
  const p = t.complete.find((x) => x.id === e.args?.p_idx);
  return p === undefined ? 'none' : `${p.name}#${p.args?.step ?? p.args?.count ?? ''}`;
};

describe('a sync iter whose body awaits', () => {
  it('nests what the body does after await under the block of its item, and the code after the loop under none', async () => {
    const loop = instrument('sctx', 'loop');
    const work = instrument('sctx', 'work');
    const leaf = work.wrap(function leaf() {
      return 1;
    }, 'leaf');
    const job = work.wrap(async function job() {
      await tick();
      return leaf();
    }, 'job');
    for (const i of loop.iter([1, 2])) {
      leaf(); // before any await: the block is on the sync stack
      await tick();
      leaf(); // after: the block is the async context
      await job();
      void i;
    }
    leaf(); // after the loop
    later((t) => {
      const leaves = named(t, 'sctx', 'leaf');
      expect(leaves.map((e) => parentOf(t, e))).toEqual(['loop.yield#1', 'loop.yield#1', 'job#', 'loop.yield#2', 'loop.yield#2', 'job#', 'none']);
      expect(named(t, 'sctx', 'job').map((e) => parentOf(t, e))).toEqual(['loop.yield#1', 'loop.yield#2']);
    });
  });

  it('takes a block args when it ends: an update the body makes is its own', () => {
    const loop = instrument('sargs', 'epochs');
    for (const e of loop.iter([5, 6])) loop.update({ epoch: e });
    later((t) => {
      expect(named(t, 'sargs', 'epochs.yield').map((e) => e.args?.epoch)).toEqual([5, 6]);
      // the wait for an item is written before its body runs: the previous body's numbers
      expect(named(t, 'sargs', 'epochs.iter').map((e) => e.args?.epoch)).toEqual([undefined, 5]);
    });
  });

  it('gives the consumer its own context back when it breaks out of the loop', async () => {
    const loop = instrument('sbreak', 'loop');
    const leaf = instrument('sbreak', 'leaf').wrap(function leaf() {
      return 1;
    });
    for (const i of loop.iter([1, 2, 3])) {
      await tick();
      if (i === 2) break;
    }
    await tick();
    leaf();
    later((t) => expect(named(t, 'sbreak', 'leaf').map((e) => parentOf(t, e))).toEqual(['none']));
  });
});

describe('an async iter (for await)', () => {
  it("nests each body under its own block, and the source's work (a prefetch) under the loop's context", async () => {
    const outer = instrument('actx', 'outer');
    const loop = instrument('actx', 'batches');
    const work = instrument('actx', 'work');
    const load = work.wrap(async function load(i: number) {
      await tick();
      return i;
    }, 'load');
    const step = work.wrap(async function step(i: number) {
      await tick();
      return i;
    }, 'step');
    async function* prefetching(n: number): AsyncGenerator<number> {
      let next = load(0);
      for (let i = 0; i < n; i++) {
        const v = await next;
        if (i + 1 < n) next = load(i + 1); // runs while the body of item i does
        yield v;
      }
    }
    await outer.run(async () => {
      for await (const v of loop.iter(prefetching(3))) {
        await tick();
        await step(v);
      }
      await step(99); // after the loop: the outer span again
    });
    later((t) => {
      expect(named(t, 'actx', 'step').map((e) => parentOf(t, e))).toEqual(['batches.yield#1', 'batches.yield#2', 'batches.yield#3', 'outer#']);
      expect(named(t, 'actx', 'load').map((e) => parentOf(t, e))).toEqual(['outer#', 'outer#', 'outer#']);
      expect(named(t, 'actx', 'batches.iter').map((e) => parentOf(t, e))).toEqual(['outer#', 'outer#', 'outer#']);
      expect(named(t, 'actx', 'batches.yield').map((e) => parentOf(t, e))).toEqual(['outer#', 'outer#', 'outer#']);
    });
  });

  it('nests a Promise.all of items in the body under its block', async () => {
    const loop = instrument('aall', 'items');
    const item = instrument('aall', 'item').wrap(async function item(i: number) {
      await tick();
      return i;
    }, 'item');
    async function* two(): AsyncGenerator<number> {
      yield 1;
      yield 2;
    }
    for await (const v of loop.iter(two())) await Promise.all([item(v), item(v + 10)]);
    later((t) => expect(named(t, 'aall', 'item').map((e) => parentOf(t, e))).toEqual(['items.yield#1', 'items.yield#1', 'items.yield#2', 'items.yield#2']));
  });

  it('gives the consumer its own context back when it breaks out', async () => {
    const loop = instrument('abreak', 'loop');
    const leaf = instrument('abreak', 'leaf').wrap(function leaf() {
      return 1;
    });
    async function* many(): AsyncGenerator<number> {
      for (let i = 0; ; i++) yield i;
    }
    for await (const i of loop.iter(many())) if (i === 1) break;
    await tick();
    leaf();
    later((t) => {
      expect(named(t, 'abreak', 'loop.yield')).toHaveLength(2);
      expect(named(t, 'abreak', 'leaf').map((e) => parentOf(t, e))).toEqual(['none']);
    });
  });
});

describe('a closed span', () => {
  it('is no parent of a continuation that outlives it', async () => {
    const d = instrument('closed', 'fn');
    const leaf = instrument('closed', 'leaf').wrap(function leaf() {
      return 1;
    });
    let later_: Promise<void> = Promise.resolve();
    const f = d.wrap(async function f() {
      await tick();
      later_ = tick().then(() => void leaf()); // fire and forget: runs after f's span closed
    });
    await f();
    await later_;
    later((t) => expect(named(t, 'closed', 'leaf').map((e) => parentOf(t, e))).toEqual(['none']));
  });
});

describe('a region started with context: true', () => {
  it("stands in for the span of its async context, in the frames of a driver's callbacks, until it stops", async () => {
    const train = instrument('drv', 'train');
    const epoch = instrument('drv', 'epoch');
    const step = instrument('drv', 'step');
    const work = instrument('drv', 'work').wrap(async function work() {
      await tick();
    }, 'work');
    // a driver like model.fit: it awaits callbacks, each of which awaits before doing anything
    const callbacks = {
      epochBegin: async () => {
        await tick();
        return epoch.start({ context: true });
      },
      stepBegin: async () => {
        await tick();
        return step.start({ context: true });
      },
    };
    await train.run(async () => {
      for (let e = 0; e < 2; e++) {
        const er = await callbacks.epochBegin();
        for (let s = 0; s < 2; s++) {
          const sr = await callbacks.stepBegin();
          await work();
          await tick();
          sr.stop();
        }
        await work(); // between steps: under the epoch
        er.stop();
      }
      await work(); // after the epochs: under train again
    });
    later((t) => {
      expect(named(t, 'drv', 'epoch').map((e) => parentOf(t, e))).toEqual(['train#', 'train#']);
      expect(named(t, 'drv', 'step').map((e) => parentOf(t, e))).toEqual(['epoch#', 'epoch#', 'epoch#', 'epoch#']);
      expect(named(t, 'drv', 'work').map((e) => parentOf(t, e))).toEqual(['step#', 'step#', 'epoch#', 'step#', 'step#', 'epoch#', 'train#']);
    });
  });
});

describe("a plugin's raw async span", () => {
  it('started in a loop body and ended after it nests under the loop, never under a block it outlives', async () => {
    const outer = instrument('raw', 'outer');
    const loop = instrument('raw', 'loop');
    async function* three(): AsyncGenerator<number> {
      for (let i = 0; i < 3; i++) yield i;
    }
    await outer.run(async () => {
      const t = getTracer()!;
      let cycle: ReturnType<typeof t.enter> | null = null;
      for (const i of loop.iter([1, 2])) {
        await tick();
        if (i === 1) cycle = t.enter({ async: true }); // a profiler's cycle: spans several steps
      }
      for await (const i of loop.iter(three())) if (i === 1) t.exit(cycle!, 'cycle', 'raw');
      const other = t.enter({ async: true });
      for await (const i of loop.iter(three())) if (i === 2) t.exit(t.enter({ async: true }), 'inside', 'raw'); // closed in its block: fine either way
      t.exit(other, 'after', 'raw');
    });
    later((t) => {
      expect(named(t, 'raw', 'cycle').map((e) => parentOf(t, e))).toEqual(['outer#']);
      expect(named(t, 'raw', 'after').map((e) => parentOf(t, e))).toEqual(['outer#']);
    });
  });
});
