import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { profile } from './profiler.js';
import type { ProfilerResult } from './result.js';
import { tempDir } from '@dftracer/testing';
import { smallCnn, tf } from './tfjs.test-util.js';

let result: ProfilerResult;

beforeAll(async () => {
  const cnn = await smallCnn();
  cnn.trainStep();
  const p = profile({ tf, recordShapes: true, profileMemory: true, withStack: true });
  p.start();
  for (let i = 0; i < 3; i++) {
    cnn.trainStep();
    p.step();
  }
  await p.stop();
  result = p.result!;
  cnn.dispose();
});

const sumBy = (f: (e: ReturnType<ProfilerResult['events']>[number]) => number): Map<string, number> => {
  const m = new Map<string, number>();
  for (const e of result.events()) m.set(e.name, (m.get(e.name) ?? 0) + f(e));
  return m;
};

describe('keyAverages', () => {
  it('totals equal the sum of event durations, counts and bytes per name', () => {
    const ka = result.keyAverages();
    const dur = sumBy((e) => e.duration);
    const count = sumBy(() => 1);
    const bytes = sumBy((e) => e.bytesAdded);
    expect(ka.map((r) => r.key).sort()).toEqual([...dur.keys()].sort());
    for (const r of ka) {
      expect(r.cpuTimeTotal + r.deviceTimeTotal).toBe(dur.get(r.key));
      expect(r.count).toBe(count.get(r.key));
      expect(r.cpuMemoryUsage).toBe(bytes.get(r.key));
      expect(r.cpuTime).toBeCloseTo(r.cpuTimeTotal / r.count, 9);
      // cpu kernels do not nest: self time is the whole time
      expect(r.selfCpuTimeTotal).toBe(r.cpuTimeTotal);
    }
    expect(ka.selfCpuTimeTotal).toBe([...dur.values()].reduce((a, b) => a + b, 0));
  });

  it('prints a table like torch’s, sorted and cut', () => {
    const ka = result.keyAverages();
    const text = ka.table({ sortBy: 'self_cpu_time_total', rowLimit: 5 });
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toMatch(/Name\s+Self CPU %\s+Self CPU\s+CPU total %\s+CPU total\s+CPU time avg\s+CPU Mem\s+Self CPU Mem\s+# of Calls/);
    expect(lines).toHaveLength(3 + 5 + 2);
    expect(lines[lines.length - 1]).toMatch(/^Self CPU time total: \d+\.\d{3}(us|ms|s)$/);
    const top = [...ka].sort((a, b) => b.selfCpuTimeTotal - a.selfCpuTimeTotal).slice(0, 5);
    top.forEach((r, i) => expect(lines[3 + i]!.trim().startsWith(r.key)).toBe(true));
    expect(ka.table({ sortBy: 'count' }).split('\n')[3]!.trim().split(/\s+/)[0]).toBe([...ka].sort((a, b) => b.count - a.count)[0]!.key);
    expect(() => ka.table({ sortBy: 'speed' as never })).toThrow(/sortBy "speed" is not one of/);
  });

  it('groups by input shape and by call site', () => {
    const byShape = result.keyAverages({ groupByInputShape: true });
    const conv = byShape.filter((r) => r.key === 'Conv2D');
    expect(conv).toHaveLength(1);
    expect(conv[0]!.inputShapes).toBe('[[4, 8, 8, 1], [3, 3, 1, 4]]');
    expect(byShape.length).toBeGreaterThan(result.keyAverages().length);
    expect(byShape.table()).toMatch(/Input Shapes/);
    const byStack = result.keyAverages({ groupByStackN: 1 });
    expect(byStack.every((r) => r.stack.length <= 1)).toBe(true);
    expect(byStack.some((r) => /tfjs\.test-util\.ts/.test(r.stack[0] ?? ''))).toBe(true);
  });
});

describe('exportStacks', () => {
  it('writes collapsed stacks whose values add up to the self CPU time of the kernels with a stack', () => {
    const file = join(tempDir(), 'stacks.txt');
    result.exportStacks(file);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    let total = 0;
    for (const l of lines) {
      const m = /^(.+);([^;]+) (\d+)$/.exec(l)!;
      expect(m).not.toBeNull();
      expect(m[1]).toMatch(/tfjs\.test-util\.ts:\d+/); // the program's frames, outermost first
      total += Number(m[3]);
    }
    const kernels = result.events().filter((e) => e.kind === 'kernel' && e.stack.length > 0);
    expect(total).toBe(kernels.reduce((s, e) => s + e.duration, 0));
    expect(() => result.exportStacks(file, 'wall' as never)).toThrow(/metric must be/);
  });
});
