import { describe, expect, it } from 'vitest';
import { expectValid, runExample } from './harness.js';

const MiB = 1 << 20;

/**
 * The soak (src/soak.ts): 3,000 training steps with ai, dynamo, the profiler (a cycle every 8
 * steps, written by traceHandler) and counters on, `dataSync()` each step so the loop never
 * yields. Memory is read after a forced GC (--expose-gc), so it is what the process keeps: after
 * the first fifth (JIT, pools, the writer's heap sized), tracing must keep it flat. `pnpm bench`
 * in this package runs the same loop for 100,000 steps.
 */
describe('soak', () => {
  it('3,000 steps with every integration on: tensors flat, RSS growth from step 600 to 3,000 under 25 MiB, trace valid', async () => {
    const run = await runExample('soak', { nodeArgs: ['--expose-gc'], args: ['--steps', '3000', '--every', '100'] });
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, number | boolean | string>);
    const samples = lines.filter((l) => l.done === undefined) as { step: number; rss: number; tensors: number }[];
    const done = lines.find((l) => l.done === true)!;
    expect(samples).toHaveLength(30);
    const at600 = samples.find((s) => s.step === 600)!;
    const end = samples.at(-1)!;
    console.log(`[soak] rss at 600: ${(at600.rss / MiB).toFixed(1)} MiB, at 3000: ${(end.rss / MiB).toFixed(1)} MiB`);
    for (const s of samples) expect(s.tensors, `tensors at step ${s.step}`).toBe(samples[0]!.tensors);
    expect(end.rss - at600.rss).toBeLessThan(25 * MiB);
    expect(done.from).toBe(600);
    await expectValid(run.files);
    // Every integration wrote into the trace: ai steps, dynamo kernels, profiler cycles, counters.
    const cats = new Set(run.events.map((e) => e.cat));
    for (const c of ['compute', 'dynamo', 'profiler', 'PP']) expect(cats, c).toContain(c);
    expect(run.events.filter((e) => e.name === 'step' && e.cat === 'compute')).toHaveLength(3000);
    expect(run.events.filter((e) => e.name === 'profiler.cycle')).toHaveLength(375);
  });
});
