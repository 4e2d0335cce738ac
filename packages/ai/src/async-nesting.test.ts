// Nesting across `await` in the usual shape of tfjs code: a sync epoch loop whose body awaits
// (`for await` over an async generator that prefetches its next batch as `Promise.all` of
// items, and an awaited async compute). The body's spans nest under the blocks, so self time
// lands on the compute, not on the loop; per epoch and per step figures from the program's clock.
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '@dftracer/testing';
import { ai } from './index.js';
import { busy, near, ProgramClock, RETRIES, sleep, traceAndSummarize, us } from './program-clock.test-util.js';

const EPOCHS = [0, 1, 2];
const STEPS = 4;
const ITEM_MS = 3;
const COMPUTE_MS = 4; // twice, around an await

async function program(clock: ProgramClock): Promise<void> {
  let compute = 0;
  let end = 0;
  const item = ai.data.item(async (i: number) => {
    await sleep(ITEM_MS);
    return i;
  });
  const forward = ai.compute.forward(async (batch: number[]) => {
    const c0 = performance.now();
    busy(COMPUTE_MS);
    await sleep(1);
    busy(COMPUTE_MS);
    end = performance.now();
    compute = us(c0, end);
    return batch.length;
  });
  // a loader that starts loading the next batch before handing out the current one
  async function* loader(n: number): AsyncGenerator<number[]> {
    let next = Promise.all([item(0), item(1)]);
    for (let b = 0; b < n; b++) {
      const batch = await next;
      if (b + 1 < n) next = Promise.all([item(2 * b + 2), item(2 * b + 3)]);
      yield batch;
    }
  }
  for (const epoch of ai.pipeline.epoch.iter(EPOCHS)) {
    clock.beginEpoch(epoch);
    ai.update({ epoch });
    let step = 0;
    // the wait for a batch as the loop sees it: from asking for it to its body's first line
    let w0 = performance.now();
    for await (const batch of ai.dataloader.fetch.iter(loader(STEPS))) {
      const wait = us(w0, performance.now());
      ai.update({ step: ++step });
      await forward(batch);
      clock.step(step, wait, compute, end);
      w0 = performance.now();
    }
    clock.endEpoch();
  }
}

describe('a sync epoch loop with an async body', () => {
  it('nests the body under its blocks: per epoch, per step and self time as the program measured them', { retry: RETRIES }, async () => {
    const clock = new ProgramClock();
    const { trace, summary } = await traceAndSummarize('async-body', () => program(clock));

    // every event's parent is the span open in its own async context
    const byId = new Map(trace.events.map((e) => [e.id, e]));
    const parentName = (e: TraceEvent) => byId.get(e.args?.p_idx)?.name ?? 'none';
    const parents = (name: string) => new Set(trace.events.filter((e) => e.name === name).map(parentName));
    expect(parents('forward')).toEqual(new Set(['fetch.block']));
    expect(parents('fetch.block')).toEqual(new Set(['epoch.block']));
    expect(parents('fetch.iter')).toEqual(new Set(['epoch.block']));
    // the loader's prefetches run in the loop's context: the epoch, never a block they outlive
    expect(parents('item')).toEqual(new Set(['epoch.block']));
    expect(trace.events.filter((e) => e.name === 'epoch.block').map((e) => e.args?.epoch)).toEqual(EPOCHS);

    const p = summary.phases;
    expect(p.epochs.map((e) => e.label)).toEqual(EPOCHS.map((e) => `epoch ${e}`));
    for (const [i, want] of clock.epochs.entries()) {
      const got = p.epochs[i]!;
      near(got.wall_us, us(want.start, want.end), `${got.label} wall`);
      near(got.compute_us, want.compute_us, `${got.label} compute`);
      near(got.wait_us, want.wait_us, `${got.label} data wait`);
    }
    expect(p.steps.map((s) => s.label)).toEqual(clock.steps.map((s) => `epoch ${s.epoch} step ${s.step}`));
    for (const [i, want] of clock.steps.entries()) {
      const got = p.steps[i]!;
      near(got.wall_us, us(want.start, want.end), `${got.label} wall`);
      near(got.compute_us, want.compute_us, `${got.label} compute`);
      near(got.wait_us, want.wait_us, `${got.label} data wait`);
    }

    // the self-time table: the compute on top with its own time; the loops keep only the time of
    // their own code and plumbing, which with the waits is what the program's clock has outside
    // its computes (an epoch's wall less its computes)
    const names = [...summary.by_name].filter((r) => r.cat !== 'dftracer').sort((a, b) => b.self_us - a.self_us);
    const self = (name: string) => names.find((r) => r.name === name)!.self_us;
    const computeTotal = clock.epochs.reduce((a, e) => a + e.compute_us, 0);
    const outsideCompute = clock.epochs.reduce((a, e) => a + us(e.start, e.end) - e.compute_us, 0);
    const waits = p.epochs.reduce((a, e) => a + e.wait_us, 0);
    expect(names[0]!.name).toBe('forward');
    near(self('forward'), computeTotal, 'forward self time', 2000);
    const loops = self('epoch.block') + self('fetch.block');
    expect(loops + waits, `the loops' self time ${loops} µs and the data waits ${waits} µs, against ${Math.round(outsideCompute)} µs outside compute`).toBeLessThanOrEqual(outsideCompute + 1000);
  });
});
