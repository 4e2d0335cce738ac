import { summarize } from '@dftracer/analyzer';
import { describe, expect, it } from 'vitest';
import { childrenOf, descendantsOf } from '@dftracer/testing';
import { expectValid, named, ofCat, runExample, type Run } from './harness.js';

describe('demo', () => {
  let run: Run;

  it('trains the CNN into one valid trace file', async () => {
    // The leak verdict needs enough samples in each epoch to find the floor between steps: a demo epoch
    // lasts about a second, so counters are sampled every 20 ms (the default 100 ms gives ~15).
    run = await runExample('demo', { env: { DEMO_EPOCHS: '2' } });
    expect(run.files).toHaveLength(1);
    await expectValid(run.files);
    expect(run.stdout).toMatch(/tfjs {4}(webgpu|wasm|cpu|tensorflow): /);
    expect(run.stdout).toMatch(/epoch 2\/2 .* held-out accuracy/);
    expect(run.stdout).toContain(`trace ${run.files[0]}`);
    expect(run.stdout).toMatch(/report {2}\S+report\.html/);
    // the counter tracks: memory beside the events, and the tensor-leak verdict
    expect(run.stdout).toMatch(/\nmemory {3}rss peak [\d.,]+ [KMG]i?B, heap peak [\d.,]+ [KMG]i?B, tfjs peak [\d,]+ tensors/);
    // every integration on, and the demo frees what it makes: the verdict never claims a leak. On a
    // busy machine its loader may read further ahead late in the last epoch, which the verdict may
    // name as a rise it cannot prove ("none proven; rising at the end of epoch 2: …"), never as a leak.
    expect(run.stdout).toMatch(/\n {2}tensor leak: none(\n| proven; rising at the end of epoch 2: \+\d+ tensors?, )/);
    // every figure says what it is: 2 epochs × 64 steps, the median named for its figure, beside the
    // slowest steps each reason's median named for the figure it is a median of
    expect(run.stdout).toMatch(/\n128 steps; median wall of a step [\d.]+ m?s; the slowest \(most wall first\):\n/);
    const reasons = [...run.stdout.matchAll(/^ {2}epoch \d+ step \d+ +[\d.]+ m?s {2}(.*)$/gm)].map((m) => m[1]!);
    expect(reasons).toHaveLength(3);
    for (const r of reasons) expect(r).toMatch(/^(data wait|compute|other work|idle|I\/O outside compute) [\d.]+ (µs|ms|s) \(median \1 of a step [\d.]+ (µs|ms|s)\)$|^no figure above its median over the steps$/);
    expect(run.stdout).toMatch(/\nfiles: \d+ in \d+ directories, most bytes read and written first\n/);
    // and in that order (ties by name)
    const kib = (v: string, u: string) => Number(v) * (u === 'MiB' ? 1024 : 1);
    const dirs = [...run.stdout.matchAll(/^ +\d+ files +([\d.]+) (KiB|MiB) read +([\d.]+) (KiB|MiB) written +I\/O busy +\S+ \S+ +(\S+)$/gm)].map((m) => ({ moved: kib(m[1]!, m[2]!) + kib(m[3]!, m[4]!), dir: m[5]! }));
    expect(dirs.length).toBeGreaterThan(1);
    for (let i = 1; i < dirs.length; i++) expect(dirs[i - 1]!.moved > dirs[i]!.moved || (dirs[i - 1]!.moved === dirs[i]!.moved && dirs[i - 1]!.dir < dirs[i]!.dir), JSON.stringify(dirs)).toBe(true);
  });

  it('holds POSIX, data, dataloader, compute and pipeline events', () => {
    const cats = new Set(run.events.map((e) => e.cat));
    for (const c of ['POSIX', 'data', 'dataloader', 'compute', 'pipeline', 'dynamo', 'PP']) expect(cats).toContain(c);
    // dynamo: the model's kernels forward and backward, with the epoch of their backend
    const dynamo = ofCat(run.events, 'dynamo');
    expect(named(dynamo, 'function.Conv2DBackpropFilter').length).toBeGreaterThanOrEqual(2 * 64 * 2);
    expect(new Set(dynamo.map((e) => e.args?.epoch))).toEqual(new Set([1, 2]));
    // two profiled cycles of four active steps each
    expect(run.events.filter((e) => e.name.startsWith('ProfilerStep#'))).toHaveLength(8);
    expect(ofCat(run.events, 'PP').some((e) => e.name === 'Conv2DBackpropFilter')).toBe(true);
    for (const phase of ['forward', 'backward', 'step']) expect(named(ofCat(run.events, 'compute'), phase)).toHaveLength(2 * 64);
    expect(named(ofCat(run.events, 'dataloader'), 'fetch.iter')).toHaveLength(2 * (64 + 16));
    // ai.update({ epoch }) and compute.update({ step }) number the steps
    const steps = named(ofCat(run.events, 'compute'), 'step');
    expect(steps.filter((e) => e.args?.epoch === 2).map((e) => e.args?.step)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    expect(named(ofCat(run.events, 'pipeline'), 'train')).toHaveLength(1);
    // loadTf says which tfjs it chose in a CM record
    expect(run.metadata.some((m) => m.name === 'CM' && m.args?.name === 'tfjs' && /"backend":"(wasm|cpu|tensorflow)"/.test(String(m.args?.value)))).toBe(true);
    expect(named(ofCat(run.events, 'pipeline'), 'epoch')).toHaveLength(2);
  });

  it('nests every image read under the data item that asked for it', () => {
    const items = named(ofCat(run.events, 'data'), 'item'); // @ai.data.item on ImageDataset.getItem
    expect(items).toHaveLength(2 * (2048 + 512));
    const reads = childrenOf(named(ofCat(run.events, 'POSIX'), 'read'), items);
    expect(reads.length).toBeGreaterThanOrEqual(items.length);
    // and every item inside an epoch of the training pipeline
    const inEpochs = new Set(descendantsOf(run.events, named(ofCat(run.events, 'pipeline'), 'epoch')).map((e) => e.id));
    expect(items.filter((e) => inEpochs.has(e.id))).toHaveLength(items.length);
  });

  it('summarises to non-zero I/O and compute', async () => {
    const s = await summarize(run.files);
    expect(s.totals.io_us).toBeGreaterThan(0);
    expect(s.totals.compute_us).toBeGreaterThan(0);
    expect(s.bytes_read).toBeGreaterThan((2048 + 512) * 2 * 784);
  });
});
