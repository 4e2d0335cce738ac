// Epochs and steps as the program numbered them: the README's loop (`ai.pipeline.epoch.iter`
// with `ai.update({ epoch })` first in its body, pydftracer's idiom too) and explicit updates,
// traced and summarised; every figure and label checked against the program's own clock.
import { describe, expect, it } from 'vitest';
import { ai } from './index.js';
import { busy, checkCalls, checkWindows, close, now, ProgramClock, sleepSync, traceAndSummarize } from './program-clock.test-util.js';

const STEPS = 8;
const LOAD_MS = 2;
const COMPUTE_MS = 5;
const STALL_MS = 150;

interface Case {
  name: string;
  epochs: number[];
  /** `iter`: the README's loop; `explicit`: `ai.update({ epoch })` then `ai.pipeline.epoch.run`. */
  form: 'iter' | 'explicit';
}

/**
 * The training loop: each epoch loads STEPS batches (a read that blocks) and computes on each. The
 * last step of the last epoch stalls: its batch takes STALL_MS, or twice the longest step before it
 * if more (a loaded machine stretches every step; the stalled one stays the slowest, by
 * construction). Every traced call is bracketed on the program's clock.
 */
function program(c: Case, clock: ProgramClock, stalled: { epoch: number; step: number }): void {
  const forward = ai.compute.forward(clock.inside('forward', (x: number) => (busy(COMPUTE_MS), x)));
  const longest = () => Math.max(0, ...clock.steps.map((x) => x.e[1] - x.s[0])) / 1000;
  // the loader's own readings: when it resumes for a batch and when it hands it over
  function* loader(epoch: number): Generator<number> {
    for (let s = 1; s <= STEPS; s++) {
      const i0 = now();
      sleepSync(epoch === stalled.epoch && s === stalled.step ? Math.max(STALL_MS, 2 * longest()) : LOAD_MS);
      clock.noteInside('wait', [i0, now()]);
      yield s;
    }
  }
  const steps = (epoch: number): void => {
    let w0 = clock.before('wait');
    for (const s of ai.dataloader.fetch.iter(loader(epoch))) {
      clock.after('wait', w0);
      ai.update({ step: s });
      const f0 = clock.before('forward');
      forward(s);
      clock.step(s, clock.after('forward', f0));
      w0 = clock.before('wait');
    }
    // the loader's last, empty turn is no event of the tracer's (nor a batch's wait)
    clock.endEpoch();
  };
  if (c.form === 'iter') {
    clock.markBefore();
    for (const epoch of ai.pipeline.epoch.iter(c.epochs)) {
      clock.beginEpoch(epoch);
      ai.update({ epoch });
      steps(epoch);
    }
    clock.afterEpoch();
  } else {
    for (const epoch of c.epochs) {
      ai.update({ epoch });
      clock.markBefore();
      ai.pipeline.epoch.run(() => {
        clock.beginEpoch(epoch);
        steps(epoch);
      });
      clock.afterEpoch();
    }
  }
}

describe.each<Case>([
  { name: "the README's loop, epochs 0..2", epochs: [0, 1, 2], form: 'iter' },
  { name: "the README's loop, epochs 1..3", epochs: [1, 2, 3], form: 'iter' },
  { name: 'explicit ai.update before each epoch, epochs 1..3', epochs: [1, 2, 3], form: 'explicit' },
])('$name', (c) => {
  it('labels every epoch and step as the program numbered them, with its figures, and finds the stalled step in its epoch', async () => {
    const clock = new ProgramClock();
    // the last step of the last epoch waits longest for its batch
    const stalled = { epoch: c.epochs.at(-1)!, step: STEPS };
    const { trace, summary } = await traceAndSummarize('labels', () => program(c, clock, stalled));

    // the writer: each epoch span carries the epoch its body set
    const epochName = c.form === 'iter' ? 'epoch.block' : 'epoch';
    const spans = trace.complete.filter((e) => e.cat === 'pipeline' && e.name === epochName);
    expect(spans.map((e) => e.args?.epoch)).toEqual(c.epochs);
    // the premise of the tolerance: every stamp lies in its bracket on the program's clock
    checkCalls(trace.complete, performance.timeOrigin, clock.calls, {
      forward: (e) => e.cat === 'compute' && e.name === 'forward',
      wait: (e) => e.cat === 'dataloader' && e.name === 'fetch.iter',
    });
    checkWindows(spans, performance.timeOrigin, clock.epochs.map((e) => ({ ...e, what: `epoch ${e.epoch}` })));

    const p = summary.phases;
    expect(p.epoch_source).toBe('spans');
    expect(p.epochs.map((e) => e.label)).toEqual(c.epochs.map((e) => `epoch ${e}`));
    expect(p.epochs.map((e) => e.epoch)).toEqual(c.epochs);
    clock.epochs.forEach((want, i) => clock.check(p.epochs[i]!, want, p.epochs[i]!.label));

    expect(p.step_source).toBe('step-arg');
    expect(p.steps.map((s) => s.label)).toEqual(clock.steps.map((s) => `epoch ${s.epoch} step ${s.step}`));
    clock.steps.forEach((want, i) => {
      const got = p.steps[i]!;
      expect({ epoch: got.epoch, step: got.step }).toEqual({ epoch: want.epoch, step: want.step });
      clock.check(got, want, got.label);
    });

    // the stalled step, in the epoch it stalled in, for what it waited on
    const want = clock.steps.find((s) => s.epoch === stalled.epoch && s.step === stalled.step)!;
    const slow = p.slowest_steps[0]!;
    expect(slow.label).toBe(`epoch ${stalled.epoch} step ${stalled.step}`);
    expect(slow.reason).toMatch(/^data wait /);
    close(slow.wait_us, clock.truth(want).wait, 'the stalled step data wait', clock.slack(want));
  });
});
