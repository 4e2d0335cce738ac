import * as tf from '@tensorflow/tfjs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dftFn, finalize, initializeLog } from '@dftracer/core';
import { readTrace, tempDir, traceFiles, traceProblems, type TraceEvent } from '@dftracer/testing';
import * as tfCore from '@tensorflow/tfjs-core';
import { kernelHubStatus, subscribeKernels } from '../kernels/kernel-hub.js';
import { useTfNamespace } from '../namespace.js';
import { trackTfjsMemory } from './tfjs-memory.js';

const STEPS = 40;

/** With the kernel hub subscribed, as dynamo and the profiler do; returns what undoes it. */
const viaKernelHub = (): (() => void) => subscribeKernels(tf, () => {});

/**
 * Trains a real linear model for STEPS steps with the counter started by `start` (default the
 * kernel hub), each step a traced event with its step number; `leak` keeps one tensor per step.
 * Returns the tfjs memory samples and the step events of the trace.
 */
function train(leak: boolean, start: () => () => void = viaKernelHub): { samples: TraceEvent[]; steps: TraceEvent[] } {
  const dir = tempDir();
  initializeLog({ enable: true, logFile: join(dir, 'train'), countersIntervalMs: 1, disableIo: true });
  const unsubscribe = start();
  const kept: tf.Tensor[] = [];
  const w = tf.variable(tf.zeros([8, 1]));
  const x = tf.randomNormal([256, 8]);
  const y = tf.randomNormal([256, 1]);
  const opt = tf.train.sgd(0.01);
  const train = dftFn('train');
  const step = (): void => {
    opt.minimize(() => tf.losses.meanSquaredError(y, tf.matMul(x, w)));
    if (leak) kept.push(tf.add(w, 1)); // the classic leak: a tensor made outside tidy, never disposed
  };
  try {
    for (let s = 1; s <= STEPS; s++) train.run(step, { step: s });
  } finally {
    unsubscribe();
    finalize();
    tf.dispose([...kept, w, x, y]);
    opt.dispose();
  }
  const trace = readTrace(traceFiles(dir)[0]!);
  expect(traceProblems(trace)).toEqual([]);
  return { samples: trace.counters.filter((c) => c.cat === 'tfjs' && c.name === 'memory'), steps: trace.program.filter((e) => e.args?.step !== undefined) };
}

/** num_tensors after each step: the first sample between its end and the next step's start. */
function afterEachStep(samples: TraceEvent[], steps: TraceEvent[]): number[] {
  const out: number[] = [];
  steps.forEach((s, i) => {
    const next = steps[i + 1]?.ts ?? Infinity;
    const v = samples.find((c) => c.ts >= s.ts + s.dur && c.ts <= next);
    if (v !== undefined) out.push(v.args.num_tensors as number);
  });
  return out;
}

describe('tfjs memory counter', () => {
  it('samples tf.memory() as cat tfjs memory while the kernel hub is subscribed: +1 tensor per step when a step leaks one', () => {
    const { samples, steps } = train(true);
    expect(steps).toHaveLength(STEPS);
    expect(samples.length).toBeGreaterThan(STEPS / 2);
    for (const c of samples) expect(Object.keys(c.args).sort()).toEqual(['hhash', 'num_bytes', 'num_data_buffers', 'num_tensors']);
    const after = afterEachStep(samples, steps);
    expect(after.length).toBeGreaterThan(STEPS / 2);
    // between steps only the leaked tensors remain: one more after every step
    const diffs = after.slice(1).map((v, i) => v - after[i]!);
    expect(diffs.every((d) => d >= 0)).toBe(true);
    expect((after.at(-1)! - after[0]!) / (after.length - 1)).toBeGreaterThan(0.5);
  });

  it('a training loop that disposes stays flat between steps', () => {
    const { samples, steps } = train(false);
    const after = afterEachStep(samples, steps).slice(2); // the optimizer's first steps create its state
    expect(after.length).toBeGreaterThanOrEqual(10);
    expect(new Set(after).size).toBe(1);
  });

  it('starts when tfjs is handed over (useTfNamespace, as loadTf and ai do), without the kernel hub; one sampler per engine', () => {
    const { samples, steps } = train(true, () => {
      useTfNamespace(tf);
      useTfNamespace(tf); // handed over again: still one
      return trackTfjsMemory(tfCore); // tfjs-core's namespace: the same engine, the same sampler
    });
    expect(kernelHubStatus().listeners).toBe(0);
    // a step takes about a 1 ms interval without the hub's wrappers: a sample every step or two
    expect(samples.length).toBeGreaterThan(STEPS / 4);
    expect(new Set(samples.map((c) => c.ts)).size).toBe(samples.length);
    const after = afterEachStep(samples, steps);
    expect(after.length).toBeGreaterThan(STEPS / 4);
    expect((after.at(-1)! - after[0]!) / (after.length - 1)).toBeGreaterThan(0.5);
  });

  it('is one sampler per tf however many ask, removed with the last', () => {
    const stop1 = trackTfjsMemory(tf);
    const stop2 = trackTfjsMemory(tf);
    stop1();
    stop1();
    stop2();
    expect(() => trackTfjsMemory({} as never)).toThrow(/memory\(\) nor engine\(\)/);
  });
});
