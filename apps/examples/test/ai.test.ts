import { describe, expect, it } from 'vitest';
import { childrenOf, descendantsOf, type TraceEvent } from '@dftracer/testing';
import { expectValid, named, ofCat, runExample } from './harness.js';

const within = (inner: TraceEvent, outer: TraceEvent) => inner.ts! >= outer.ts! && inner.ts! + inner.dur! <= outer.ts! + outer.dur!;

describe('ai examples', () => {
  it('ai-pipeline: one tree from pipeline.train down to the file reads of each data.item', async () => {
    const run = await runExample('ai-pipeline');
    expect(run.files).toHaveLength(1);
    await expectValid(run.files);
    expect(run.stdout).toMatch(/epoch 2: held-out accuracy/);
    const ev = run.events;
    const train = named(ofCat(ev, 'pipeline'), 'train');
    expect(train).toHaveLength(1);
    const underTrain = new Set(descendantsOf(ev, train).map((e) => e.id));
    const items = named(ofCat(ev, 'data'), 'item');
    expect(items).toHaveLength(2 * (512 + 128));
    expect(items.every((e) => underTrain.has(e.id))).toBe(true);
    expect(childrenOf(named(ofCat(ev, 'POSIX'), 'read'), items).length).toBeGreaterThanOrEqual(items.length);
    for (const phase of ['forward', 'backward', 'step']) expect(named(ofCat(ev, 'compute'), phase)).toHaveLength(2 * 16);
    // forward runs on the tape inside backward
    expect(childrenOf(named(ofCat(ev, 'compute'), 'forward'), named(ofCat(ev, 'compute'), 'backward'))).toHaveLength(32);
    // ai.update({ epoch }) reaches every compute event; compute.update({ step }) numbers them
    const steps = named(ofCat(ev, 'compute'), 'step');
    expect(steps.filter((e) => e.args?.epoch === 2).map((e) => e.args?.step)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(named(ofCat(ev, 'pipeline'), 'evaluate')).toHaveLength(2);
    expect(named(ofCat(ev, 'pipeline'), 'epoch.iter')).toHaveLength(2);
    // the checkpoint's two files are written inside checkpoint.capture
    const capture = named(ofCat(ev, 'checkpoint'), 'capture');
    expect(capture).toHaveLength(1);
    expect(descendantsOf(ev, capture).filter((e) => e.cat === 'POSIX' && e.name === 'write').length).toBeGreaterThanOrEqual(2);
  });

  it('auto-trace: an unmodified fitDataset, evaluate and save become pipeline, compute, dataloader and checkpoint events', async () => {
    const run = await runExample('auto-trace');
    await expectValid(run.files);
    const ev = run.events;
    const train = named(ofCat(ev, 'pipeline'), 'train');
    expect(train).toHaveLength(1);
    const epochs = named(ofCat(ev, 'pipeline'), 'epoch');
    expect(epochs.map((e) => e.args?.epoch)).toEqual([0, 1]);
    expect(childrenOf(epochs, train)).toHaveLength(2);
    const steps = named(ofCat(ev, 'compute'), 'step');
    expect(steps).toHaveLength(2 * 8); // 256 images in batches of 32
    expect(descendantsOf(ev, train).filter((e) => e.cat === 'compute' && e.name === 'step')).toHaveLength(16);
    expect(steps.filter((e) => e.args?.epoch === 1).map((e) => e.args?.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // the dataset's file reads happen inside the fetches that pulled them
    const fetches = named(ofCat(ev, 'dataloader'), 'fetch');
    expect(fetches.length).toBeGreaterThanOrEqual(16);
    expect(descendantsOf(ev, fetches).filter((e) => e.cat === 'POSIX' && e.name === 'read').length).toBeGreaterThanOrEqual(256);
    expect(named(ofCat(ev, 'pipeline'), 'evaluate')).toHaveLength(1);
    const capture = named(ofCat(ev, 'checkpoint'), 'capture');
    expect(capture).toHaveLength(1);
    expect(descendantsOf(ev, capture).filter((e) => e.cat === 'POSIX' && e.name === 'write')).toHaveLength(2);
  });

  it('profiler-io: data.item reads, PP kernels and profiler steps in one trace, on one clock', async () => {
    const run = await runExample('profiler-io', { env: { DFTRACER_DATA_DIR: 'all' } });
    await expectValid(run.files);
    expect(run.files[0]).toMatch(/combined-[0-9a-f]+-app\.pfw\.gz$/);
    const ev = run.events;
    const items = named(ofCat(ev, 'data'), 'item');
    expect(items).toHaveLength(6);
    expect(childrenOf(named(ofCat(ev, 'POSIX'), 'read'), items)).toHaveLength(6);
    const pp = ofCat(ev, 'PP');
    expect(pp.filter((e) => e.name === 'FusedConv2D')).toHaveLength(2 * 6);
    // each step's kernels lie inside its ProfilerStep, between the loads before and after it
    const stepSpans = ev.filter((e) => /^ProfilerStep#[0-5]$/.test(e.name));
    expect(stepSpans).toHaveLength(6);
    for (const conv of pp.filter((e) => e.name === 'FusedConv2D')) expect(stepSpans.some((s) => within(conv, s))).toBe(true);
    const firstConv = Math.min(...pp.filter((e) => e.name === 'FusedConv2D').map((e) => e.ts!));
    expect(Math.min(...items.map((e) => e.ts!))).toBeLessThan(firstConv);
  });
});
