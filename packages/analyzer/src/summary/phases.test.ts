import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarize, formatSummary } from './summary.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { writeTrainingTrace } from '../test-util/training.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

const figures = (p: { wall_us: number; compute_us: number; wait_us: number; io_us: number; overlap_us: number; io_only_us: number; other_us: number; idle_us: number; bytes_read: number }) => ({
  wall: p.wall_us,
  compute: p.compute_us,
  wait: p.wait_us,
  io: p.io_us,
  overlap: p.overlap_us,
  ioOnly: p.io_only_us,
  other: p.other_us,
  idle: p.idle_us,
  read: p.bytes_read,
});

describe.each(['ours', 'dlio'] as const)('epoch and step views, %s layout', (layout) => {
  it('gives each epoch and step its exact figures, and finds the stalled step', async () => {
    const path = join(dir, `train-${layout}.pfw${layout === 'dlio' ? '' : '.gz'}`);
    writeTrainingTrace({ path, layout });
    const s = await summarize([path], { threads: 1 });
    const p = s.phases;
    expect(p.epoch_source).toBe(layout === 'ours' ? 'spans' : 'args');
    expect(p.step_source).toBe(layout === 'ours' ? 'step-arg' : 'compute-span');
    expect(p.epochs.map((e) => e.label)).toEqual(['epoch 1', 'epoch 2']);
    // epoch 1: compute 150 + 130, waits 100 + 20, reads 50 + 40 (20 of it under compute, 20 after),
    // preprocessing 30, nothing 50
    expect(figures(p.epochs[0]!)).toEqual({ wall: 500, compute: 280, wait: 120, io: 90, overlap: 20, ioOnly: 20, other: 30, idle: 50, read: 5096 });
    expect(figures(p.epochs[1]!)).toEqual({ wall: 500, compute: 100, wait: 400, io: 0, overlap: 0, ioOnly: 0, other: 0, idle: 0, read: 0 });
    expect(p.epochs[0]!.verdict).toBe('compute-bound: 56 % computing, 24 % waiting on data, 10 % with nothing traced running');
    expect(p.epochs[1]!.verdict).toBe('data-bound: 80 % waiting on data, 20 % computing');
    // steps tile their epoch: from the previous step's end (or the epoch's start) to their last compute
    expect(p.steps.map((x) => [x.label, x.start_us - s.start_us, x.end_us - s.start_us])).toEqual([
      ['epoch 1 step 1', 0, 250],
      ['epoch 1 step 2', 250, 400],
      ['epoch 2 step 1', 500, 1000],
    ]);
    expect(figures(p.steps[0]!)).toEqual({ wall: 250, compute: 150, wait: 100, io: 50, overlap: 0, ioOnly: 0, other: 0, idle: 0, read: 4096 });
    expect(figures(p.steps[1]!)).toEqual({ wall: 150, compute: 130, wait: 20, io: 20, overlap: 20, ioOnly: 0, other: 0, idle: 0, read: 1000 });
    expect(p.slowest_steps[0]).toMatchObject({ label: 'epoch 2 step 1', wall_us: 500, reason: 'data wait 400 µs (median data wait of a step 100 µs)' });
    // the whole run adds up: compute + wait + I/O only + other + idle = wall
    expect(figures(p.totals)).toEqual({ wall: 1000, compute: 380, wait: 520, io: 90, overlap: 20, ioOnly: 20, other: 30, idle: 50, read: 5096 });

    const text = formatSummary(s);
    expect(text).toMatch(/By epoch/);
    expect(text).toMatch(/epoch 2 .*data-bound: 80 % waiting on data, 20 % computing/);
    // medians over 3 steps: walls 250, 150, 500; computes 150, 130, 100; waits 100, 20, 400
    expect(text).toMatch(/median of a step: wall 250 µs, compute 130 µs, data wait 100 µs/);
    expect(text).toMatch(/epoch 2 step 1 .*data wait 400 µs/);
    expect(formatSummary(s, { by: 'step' })).toMatch(/By step \(3 steps/);
  });

  it('keeps the first steps only when asked to, with the median and the slowest steps over all of them', async () => {
    const path = join(dir, `train-${layout}.pfw${layout === 'dlio' ? '' : '.gz'}`);
    const all = (await summarize([path], { threads: 1 })).phases;
    const s = await summarize([path], { threads: 1, stepsKept: 1 });
    const p = s.phases;
    expect(all.steps_left_out).toBe(0);
    expect(p.steps).toEqual(all.steps.slice(0, 1));
    expect(p.steps_left_out).toBe(2);
    expect(p.median_step).toEqual(all.median_step);
    expect(p.slowest_steps).toEqual(all.slowest_steps);
    const text = formatSummary(s, { by: 'step' });
    expect(text).toMatch(/By step \(3 steps/);
    expect(text).toMatch(/… 2 more steps not listed \(the first 1 are\)/);
  });

  it('gives busy and self time per category and name, each at most the wall time', async () => {
    const path = join(dir, `train-${layout}.pfw${layout === 'dlio' ? '' : '.gz'}`);
    const s = await summarize([path], { threads: 1 });
    const cat = (c: string) => s.by_cat.find((x) => x.cat === c)!;
    expect(cat('POSIX')).toMatchObject({ total_us: 90, busy_us: 90, self_us: 90 });
    const epochCat = layout === 'ours' ? 'pipeline' : 'dlio_benchmark';
    // train [0, 1000] + epochs [0, 500] + [500, 1000]: 2000 summed, 1000 busy; self: the 50 µs
    // nothing else ran in epoch 1 (its children are everything else, by p_idx)
    expect(cat(epochCat)).toMatchObject({ total_us: 2000, busy_us: 1000, self_us: 50 });
    // item [5, 95] around its read [10, 60]: 40 µs of self time
    const item = s.by_name.find((n) => n.name === (layout === 'ours' ? 'item' : 'TorchDataset.__getitem__'))!;
    expect(item).toMatchObject({ total_us: 90, busy_us: 90, self_us: 40 });
    for (const r of [...s.by_cat, ...s.by_name]) {
      expect(r.busy_us).toBeLessThanOrEqual(s.wall_us);
      expect(r.self_us).toBeLessThanOrEqual(r.busy_us);
    }
  });
});

describe('views over many processes', () => {
  it('keeps each process its epochs, and sums the totals', async () => {
    const a = join(dir, 'rank0.pfw.gz');
    const b = join(dir, 'rank1.pfw.gz');
    writeTrainingTrace({ path: a, layout: 'ours', pid: 100 });
    writeTrainingTrace({ path: b, layout: 'ours', pid: 200, stall: 100 });
    const s = await summarize([a, b], { threads: 2 });
    expect(s.phases.processes.map((p) => p.pid)).toEqual([100, 200]);
    expect(s.phases.epochs.filter((e) => e.pid === 200).map((e) => e.wait_us)).toEqual([120, 100]);
    expect(s.phases.totals.wait_us).toBe(520 + 220);
    expect(s.phases.totals.wall_us).toBe(2000);
    expect(formatSummary(s)).toMatch(/epoch 2\s+2\s/); // one row per epoch, 2 processes
  });
});

describe('epoch numbers', () => {
  /**
   * Three epochs of `epoch.block` spans (program epochs 1, 2, 3), each with two steps of forward
   * events; `blockArgs(n)` gives the args each block was written with.
   */
  async function epochs(name: string, blockArgs: (n: number) => Record<string, number> | undefined, stepArgs: (n: number, s: number) => Record<string, number> | undefined) {
    const path = join(dir, `${name}.pfw`);
    const w = new TraceWriter({ path, pid: 7 });
    const t0 = 1_760_000_000_000_000;
    w.header();
    w.start(t0);
    for (let n = 1; n <= 3; n++) {
      const ts = t0 + n * 1000;
      const block = w.begin('epoch.block', 'pipeline', ts);
      for (let s = 1; s <= 2; s++) w.complete('forward', 'compute', ts + s * 300, 200, { parent: block, args: stepArgs(n, s) });
      w.exit(block, ts + 900, blockArgs(n));
    }
    w.end(t0 + 5000);
    w.close();
    const p = (await summarize([path])).phases;
    return { epochs: p.epochs.map((e) => e.label), steps: p.steps.map((s) => s.label) };
  }

  it("are those of the events inside an epoch, over the epoch span's own arg (written when it began by earlier builds)", async () => {
    // the earlier iter: each block carried the previous epoch's number (the first none)
    const r = await epochs('lagged', (n): Record<string, number> => (n === 1 ? { count: 1 } : { count: n, epoch: n - 1 }), (n, s) => ({ epoch: n, step: s }));
    expect(r.epochs).toEqual(['epoch 1', 'epoch 2', 'epoch 3']);
    expect(r.steps).toEqual(['epoch 1 step 1', 'epoch 1 step 2', 'epoch 2 step 1', 'epoch 2 step 2', 'epoch 3 step 1', 'epoch 3 step 2']);
  });

  it("are the epoch span's own arg when nothing inside carries one, else its rank", async () => {
    const own = await epochs('own', (n) => ({ count: n, epoch: 10 * n }), () => undefined);
    expect(own.epochs).toEqual(['epoch 10', 'epoch 20', 'epoch 30']);
    const rank = await epochs('rank', (n) => ({ count: n }), () => undefined);
    expect(rank.epochs).toEqual(['epoch 1', 'epoch 2', 'epoch 3']);
  });
});
