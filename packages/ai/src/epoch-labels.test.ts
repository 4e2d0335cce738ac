// Epochs and steps as the program numbered them: the README's loop (`ai.pipeline.epoch.iter`
// with `ai.update({ epoch })` first in its body, pydftracer's idiom too) and explicit updates,
// traced and summarised; every figure and label checked against the program's own clock.
import { describe, expect, it } from 'vitest';
import { ai } from './index.js';
import { busy, near, ProgramClock, RETRIES, sleepSync, traceAndSummarize, us } from './program-clock.test-util.js';

const STEPS = 8;
const LOAD_MS = 2;
const COMPUTE_MS = 5;
// long enough to stay the slowest step when the machine descheduled some compute
const STALL_MS = 150;

interface Case {
  name: string;
  epochs: number[];
  /** `iter`: the README's loop; `explicit`: `ai.update({ epoch })` then `ai.pipeline.epoch.run`. */
  form: 'iter' | 'explicit';
}

/**
 * The training loop: each epoch loads STEPS batches (a read that blocks; one of them stalls) and
 * computes on each. The clock is read inside the loader and the compute, next to the tracer's.
 */
function program(c: Case, clock: ProgramClock, stalled: { epoch: number; step: number }): void {
  let wait = 0;
  let compute = 0;
  let end = 0;
  const forward = ai.compute.forward((x: number) => {
    const c0 = performance.now();
    busy(COMPUTE_MS);
    end = performance.now();
    compute = us(c0, end);
    return x;
  });
  function* loader(epoch: number): Generator<number> {
    for (let s = 1; s <= STEPS; s++) {
      const w0 = performance.now();
      sleepSync(epoch === stalled.epoch && s === stalled.step ? STALL_MS : LOAD_MS);
      wait = us(w0, performance.now());
      yield s;
    }
  }
  const steps = (epoch: number): void => {
    for (const s of ai.dataloader.fetch.iter(loader(epoch))) {
      ai.update({ step: s });
      forward(s);
      clock.step(s, wait, compute, end);
    }
    clock.endEpoch();
  };
  if (c.form === 'iter') {
    for (const epoch of ai.pipeline.epoch.iter(c.epochs)) {
      clock.beginEpoch(epoch);
      ai.update({ epoch });
      steps(epoch);
    }
  } else {
    for (const epoch of c.epochs) {
      ai.update({ epoch });
      ai.pipeline.epoch.run(() => {
        clock.beginEpoch(epoch);
        steps(epoch);
      });
    }
  }
}

describe.each<Case>([
  { name: "the README's loop, epochs 0..2", epochs: [0, 1, 2], form: 'iter' },
  { name: "the README's loop, epochs 1..3", epochs: [1, 2, 3], form: 'iter' },
  { name: 'explicit ai.update before each epoch, epochs 1..3', epochs: [1, 2, 3], form: 'explicit' },
])('$name', (c) => {
  it('labels every epoch and step as the program numbered them, with its figures, and finds the stalled step in its epoch', { retry: RETRIES }, async () => {
    const clock = new ProgramClock();
    // step 7 of the second epoch waits STALL_MS for its batch
    const stalled = { epoch: c.epochs[1]!, step: 7 };
    const { trace, summary } = await traceAndSummarize('labels', () => program(c, clock, stalled));

    // the writer: each epoch span carries the epoch its body set
    const spans = trace.events.filter((e) => e.cat === 'pipeline' && e.name === (c.form === 'iter' ? 'epoch.block' : 'epoch'));
    expect(spans.map((e) => e.args?.epoch)).toEqual(c.epochs);

    const p = summary.phases;
    expect(p.epoch_source).toBe('spans');
    expect(p.epochs.map((e) => e.label)).toEqual(c.epochs.map((e) => `epoch ${e}`));
    expect(p.epochs.map((e) => e.epoch)).toEqual(c.epochs);
    for (const [i, want] of clock.epochs.entries()) {
      const got = p.epochs[i]!;
      near(got.wall_us, us(want.start, want.end), `${got.label} wall`);
      near(got.compute_us, want.compute_us, `${got.label} compute`);
      near(got.wait_us, want.wait_us, `${got.label} data wait`);
    }

    expect(p.step_source).toBe('step-arg');
    expect(p.steps.map((s) => s.label)).toEqual(clock.steps.map((s) => `epoch ${s.epoch} step ${s.step}`));
    for (const [i, want] of clock.steps.entries()) {
      const got = p.steps[i]!;
      expect({ epoch: got.epoch, step: got.step }).toEqual({ epoch: want.epoch, step: want.step });
      near(got.wall_us, us(want.start, want.end), `${got.label} wall`);
      near(got.compute_us, want.compute_us, `${got.label} compute`);
      near(got.wait_us, want.wait_us, `${got.label} data wait`);
    }

    // the stalled step, in the epoch it stalled in, for what it waited on (the program's clock
    // says which step was slowest: a descheduled compute could outlast the stall)
    const slowest = [...clock.steps].sort((a, b) => b.end - b.start - (a.end - a.start))[0]!;
    expect(slowest).toMatchObject(stalled);
    const slow = p.slowest_steps[0]!;
    expect(slow.label).toBe(`epoch ${stalled.epoch} step ${stalled.step}`);
    expect(slow.reason).toMatch(/^data wait /);
    near(slow.wait_us, slowest.wait_us, 'the stalled step data wait');
  });
});
