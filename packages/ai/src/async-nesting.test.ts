// Nesting across `await` in the usual shape of tfjs code: a sync epoch loop whose body awaits
// (`for await` over an async generator that prefetches its next batch as `Promise.all` of
// items, and an awaited async compute). The body's spans nest under the blocks, so self time
// lands on the compute, not on the loop; per epoch and per step figures from the program's clock.
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '@dftracer/testing';
import { ai } from './index.js';
import { ALL, busy, checkCalls, checkWindows, close, now, ProgramClock, sleep, traceAndSummarize } from './program-clock.test-util.js';

const EPOCHS = [0, 1, 2];
const STEPS = 4;
const ITEM_MS = 3;
const COMPUTE_MS = 4; // twice, around an await

/** The loop, with every traced call of its own bracketed on the program's clock. */
async function program(clock: ProgramClock): Promise<void> {
  const item = ai.data.item(async (i: number) => {
    await sleep(ITEM_MS);
    return i;
  });
  const forward = ai.compute.forward(
    clock.inside('forward', async (batch: number[]) => {
      busy(COMPUTE_MS);
      await sleep(1);
      busy(COMPUTE_MS);
      return batch.length;
    }),
  );
  // a loader that starts loading the next batch before handing out the current one; its own
  // readings: when it resumes for a batch and when it hands it over
  async function* loader(n: number): AsyncGenerator<number[]> {
    let next = Promise.all([item(0), item(1)]);
    for (let b = 0; b < n; b++) {
      const i0 = now();
      const batch = await next;
      if (b + 1 < n) next = Promise.all([item(2 * b + 2), item(2 * b + 3)]);
      clock.noteInside('wait', [i0, now()]);
      yield batch;
    }
  }
  clock.markBefore();
  for (const epoch of ai.pipeline.epoch.iter(EPOCHS)) {
    clock.beginEpoch(epoch);
    ai.update({ epoch });
    let step = 0;
    // the wait for a batch as the loop sees it: from asking for it to its body's first line
    let w0 = clock.before('wait');
    for await (const batch of ai.dataloader.fetch.iter(loader(STEPS))) {
      clock.after('wait', w0);
      ai.update({ step: ++step });
      const f0 = clock.before('forward');
      await forward(batch);
      clock.step(step, clock.after('forward', f0));
      w0 = clock.before('wait');
    }
    // the loader's last, empty turn is no event of the tracer's (nor a batch's wait)
    clock.endEpoch();
  }
  clock.afterEpoch();
}
describe('a sync epoch loop with an async body', () => {
  it('nests the body under its blocks: per epoch, per step and self time as the program measured them', async () => {
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
    const blocks = trace.complete.filter((e) => e.name === 'epoch.block');
    expect(blocks.map((e) => e.args?.epoch)).toEqual(EPOCHS);
    // the premise of the tolerance: every stamp lies in its bracket on the program's clock
    checkCalls(trace.complete, performance.timeOrigin, clock.calls, {
      forward: (e) => e.cat === 'compute' && e.name === 'forward',
      wait: (e) => e.cat === 'dataloader' && e.name === 'fetch.iter',
    });
    checkWindows(blocks, performance.timeOrigin, clock.epochs.map((e) => ({ ...e, what: `epoch ${e.epoch}` })));

    const p = summary.phases;
    expect(p.epochs.map((e) => e.label)).toEqual(EPOCHS.map((e) => `epoch ${e}`));
    clock.epochs.forEach((want, i) => clock.check(p.epochs[i]!, want, p.epochs[i]!.label));
    expect(p.steps.map((s) => s.label)).toEqual(clock.steps.map((s) => `epoch ${s.epoch} step ${s.step}`));
    clock.steps.forEach((want, i) => clock.check(p.steps[i]!, want, p.steps[i]!.label));

    // the self-time table: the compute on top with its own time; the loops keep only the time of
    // their own code and plumbing, which with the waits is what the program's clock has outside
    // its computes (an epoch's wall less its computes)
    const names = [...summary.by_name].filter((r) => r.cat !== 'dftracer').sort((a, b) => b.self_us - a.self_us);
    const self = (name: string) => names.find((r) => r.name === name)!.self_us;
    expect(names[0]!.name).toBe('forward');
    close(self('forward'), clock.truth(ALL).compute, 'forward self time', clock.slack(ALL));
    const outside = clock.epochs.map((e) => ({ t: clock.truth(e), sl: clock.slack(e) }));
    const outsideCompute = outside.reduce((a, { t }) => a + t.wall - t.compute, 0);
    const held = outside.reduce((a, { sl }) => a + sl, 0);
    const loops = self('epoch.block') + self('fetch.block');
    const waits = p.epochs.reduce((a, e) => a + e.wait_us, 0);
    expect(loops + waits, `the loops' self time ${loops} µs and the data waits ${waits} µs, against ${Math.round(outsideCompute)} µs outside compute, held ${Math.round(held)} µs`).toBeLessThanOrEqual(outsideCompute + 1000 + held);
  });
});
