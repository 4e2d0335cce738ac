import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '@dftracer/testing';
import { expectValid, named, ofCat, runExample } from './harness.js';

const PP_ARGS = ['device', 'cpu_memory', 'is_remote', 'device_memory_usage', 'input_size', 'total_cpu_percent', 'total_device_percent'];

function steps(events: TraceEvent[]): string[] {
  return events.filter((e) => e.name.startsWith('ProfilerStep#')).map((e) => e.name);
}

const within = (inner: TraceEvent, outer: TraceEvent) => inner.ts! >= outer.ts! && inner.ts! + inner.dur! <= outer.ts! + outer.dur!;

describe('profiler examples', () => {
  it('profiler-trace-handler: the two active steps of wait 1, warmup 1, active 2 as PP kernel events', async () => {
    const run = await runExample('profiler-trace-handler');
    expect(run.files).toHaveLength(1);
    expect(run.files[0]).toMatch(/profiler_trace-[0-9a-f]+-app\.pfw\.gz$/);
    await expectValid(run.files);
    expect(steps(run.events)).toEqual(['ProfilerStep#2', 'ProfilerStep#3']);
    const pp = ofCat(run.events, 'PP');
    const kernels = new Set(pp.map((e) => e.name));
    expect([...kernels].some((k) => /Conv2D/.test(k))).toBe(true);
    expect([...kernels].some((k) => /MatMul/.test(k))).toBe(true);
    for (const e of pp) for (const a of PP_ARGS) expect(e.args).toHaveProperty(a);
    // profileMemory: kernels that allocate report their bytes
    expect(pp.some((e) => Number(e.args!.cpu_memory) > 0)).toBe(true);
    // the same kernels, once per active step
    const conv = pp.filter((e) => /Conv2D/.test(e.name));
    expect(conv.length % 2).toBe(0);
    expect(run.stdout).toMatch(/Self CPU/i);
  });

  it('profiler-training: dftFn training steps, with the profiled kernels inside steps 2 and 3', async () => {
    const run = await runExample('profiler-training');
    expect(run.files).toHaveLength(1);
    await expectValid(run.files);
    const trainingSteps = named(ofCat(run.events, 'training'), 'trainingStep');
    expect(trainingSteps).toHaveLength(4);
    expect(steps(run.events)).toEqual(['ProfilerStep#2', 'ProfilerStep#3']);
    const pp = ofCat(run.events, 'PP');
    expect(pp.length).toBeGreaterThan(10);
    // forward (MatMul), loss (Softmax…), backward and the SGD update all recorded
    const names = new Set(pp.map((e) => e.name));
    expect([...names].some((n) => /MatMul/.test(n))).toBe(true);
    // on the tracer's clock: every kernel lies inside the 3rd or 4th trainingStep
    const [, , third, fourth] = trainingSteps.sort((a, b) => a.ts! - b.ts!);
    const matmuls = pp.filter((e) => /MatMul/.test(e.name));
    expect(matmuls.every((e) => within(e, third!) || within(e, fourth!))).toBe(true);
    expect(matmuls.filter((e) => within(e, third!)).length).toBeGreaterThan(0);
    expect(matmuls.filter((e) => within(e, fourth!)).length).toBeGreaterThan(0);
  });
});
