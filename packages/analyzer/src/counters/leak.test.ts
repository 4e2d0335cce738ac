import { describe, expect, it } from 'vitest';
import { readLeak, type StepMark } from './leak.js';

/**
 * A run of `epochs` × `steps` steps (1 ms each) whose kept tensors after step n are `kept(n)` (n from
 * 1 across the run, `queue(n)` more in flight between steps), sampled at `perStep` pseudo-random
 * points per step: a quarter of them between steps (the floor), the rest inside the step with up to
 * 60 temporaries on top, the way a busy program's samples fall.
 */
function run(o: { epochs?: number; steps?: number; perStep?: number; kept?: (n: number) => number; queue?: (n: number, step: number) => number; epochsInArgs?: boolean }) {
  const { epochs = 3, steps = 40, perStep = 2, kept = () => 0, queue = () => 0, epochsInArgs = true } = o;
  let seed = 42;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const marks: StepMark[] = [];
  const samples: Array<{ ts: number; v: number }> = [];
  for (let e = 1; e <= epochs; e++) {
    for (let s = 1; s <= steps; s++) {
      const n = (e - 1) * steps + s;
      const ts = n * 1000;
      marks.push({ ts, epoch: epochsInArgs ? e : null, step: epochsInArgs ? s : n });
      for (let k = 0; k < perStep; k++) {
        const between = rnd() < 0.25;
        const at = ts + 1 + Math.floor(rnd() * 998);
        samples.push({ ts: at, v: 20 + kept(n - 1) + queue(n, s) + (between ? 0 : 8 + Math.floor(rnd() * 52)) });
      }
    }
  }
  samples.sort((a, b) => a.ts - b.ts);
  return { samples, marks };
}

const read = (r: ReturnType<typeof run>, min = 3) => readLeak(r.samples, r.marks, min);

describe('readLeak (the tensor-leak rule)', () => {
  it('calls growth that holds at the same point of every epoch a leak, at its rate per step', () => {
    const every = read(run({ kept: (n) => n }));
    expect(every.kind).toBe('leak');
    expect(every.growth!.rate).toBeCloseTo(1, 1);
    expect(every.growth!).toMatchObject({ per: 'step', over: 3, of: 3, parts: 'epochs', from_epoch: 1, steps: 120 });
    const slow = read(run({ kept: (n) => Math.floor(n / 10), perStep: 4 }));
    expect(slow.kind).toBe('leak');
    expect(slow.growth!.rate).toBeCloseTo(0.1, 2);
  });

  it('a leak that begins in a later epoch is one over the epochs it was seen in', () => {
    const r = read(run({ epochs: 4, kept: (n) => Math.max(0, n - 80) }));
    expect(r.kind).toBe('leak');
    expect(r.growth).toMatchObject({ over: 2, of: 4, from_epoch: 3 });
  });

  it('calls a warm-up, a one-off kept allocation, a flat run and a prefetch queue that fills and drains each epoch no leak', () => {
    expect(read(run({ kept: (n) => Math.min(n, 20) })).kind).toBe('none'); // 20 steps of warm-up
    expect(read(run({ kept: (n) => (n >= 60 ? 1 : 0) }), 3).kind).toBe('none');
    expect(read(run({ kept: (n) => (n >= 60 ? 5 << 20 : 0) }), 64 * 1024).kind).toBe('none'); // a one-off 5 MiB, read as bytes
    expect(read(run({})).kind).toBe('none');
    // 2 tensors a batch, up to 16 batches ahead, filling over the first 16 steps and drained over the last 8
    const queue = (_: number, s: number) => 2 * Math.min(16, s, 40 - s);
    expect(read(run({ queue, perStep: 3 })).kind).toBe('none');
    // the same queue only in the last epoch (the machine got busy there) is no leak either
    expect(read(run({ queue: (n, s) => (n > 80 ? queue(n, s) : 0), perStep: 3 })).kind).toBe('none');
  });

  it('reports a rise held to the end of the last epoch, not seen in the one before, as a rise, not a leak', () => {
    const r = read(run({ kept: (n) => (n > 100 ? n - 100 : 0), perStep: 4 }));
    expect(r.kind).toBe('rising');
    expect(r.rise).toMatchObject({ why: 'last part only', epoch: 3, prev_epoch: 2, compared: true });
    expect(r.rise!.since!.epoch).toBe(3);
    expect(r.rise!.since!.step).toBeGreaterThan(20);
  });

  it('says too few samples where the last epochs cannot be compared, rather than none', () => {
    const sparse = run({ kept: (n) => n });
    const few = { samples: sparse.samples.filter((_, i) => i % 12 === 0), marks: sparse.marks }; // 20 samples
    expect(read(few).kind).toBe('too few samples');
    expect(readLeak([], sparse.marks, 3).kind).toBe('too few samples');
  });

  it('without epochs compares the thirds of the steps, and without steps the thirds of the time', () => {
    const noEpochs = run({ kept: (n) => n, epochsInArgs: false });
    expect(read(noEpochs).growth).toMatchObject({ parts: 'step thirds', over: 3, per: 'step' });
    expect(read(run({ epochsInArgs: false })).kind).toBe('none');
    const r = readLeak(noEpochs.samples, [], 3);
    expect(r.kind).toBe('leak');
    expect(r.growth!.per).toBe('s');
    expect(r.growth!.rate).toBeCloseTo(1000, -2); // a tensor a step of 1 ms
  });
});
