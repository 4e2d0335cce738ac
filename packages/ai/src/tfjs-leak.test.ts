// The tensor-leak verdict for @dftracer/ai alone (no dynamo, no profiler: the kernel hub is never
// subscribed): handing tfjs over (ai's loadTf, useTf) starts the tfjs memory counter.
import { join } from 'node:path';
import { finalize, initializeLog } from '@dftracer/core';
import { kernelHubStatus } from '@dftracer/tfjs/internal';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import * as tfjs from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { ai, loadTf, useTf, type Tf } from './index.js';
import { expectLeakVerdict } from './leak-verdict.test-util.js';

const EPOCHS = 3;
const STEPS = 40;

/**
 * A real training loop of EPOCHS × STEPS traced `ai.compute.step` calls (epoch e, step s), each
 * followed by a turn of the event loop (the counter samples); `leak` keeps one tensor per step
 * outside tidy. Returns the trace and the program's own tf.memory() count after each step.
 */
async function train(tf: Tf, dir: string, leak: boolean): Promise<{ file: string; counts: number[] }> {
  const kept: unknown[] = [];
  const counts: number[] = [];
  const w = tf.variable(tf.zeros([8, 1]));
  const x = tf.randomNormal([256, 8]);
  const y = tf.randomNormal([256, 1]);
  const opt = tf.train.adam(0.01);
  const step = ai.compute.step(() => {
    opt.minimize(() => tf.losses.meanSquaredError(y, tf.matMul(x, w)));
    if (leak) kept.push(tf.add(w, 1));
  });
  for (let e = 1; e <= EPOCHS; e++) {
    for (let s = 1; s <= STEPS; s++) {
      ai.update({ epoch: e, step: s });
      step();
      counts.push(tf.memory().numTensors);
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  finalize();
  tf.dispose([...(kept as never[]), w, x, y]);
  opt.dispose();
  const files = traceFiles(dir);
  expect(files).toHaveLength(1);
  expect(traceProblems(readTrace(files[0]!))).toEqual([]);
  return { file: files[0]!, counts };
}

function start(): string {
  const dir = tempDir();
  initializeLog({ enable: true, logFile: join(dir, 'train'), countersIntervalMs: 1, disableIo: true });
  return dir;
}

describe('tensor-leak verdict with @dftracer/ai alone', () => {
  it.each([
    ['keeps one tensor per step: the leak line at the program’s own rate', true],
    ['disposes: "none"', false],
  ])('ai’s loadTf, a loop that %s', async (_, leak) => {
    const dir = start();
    const { tf } = await loadTf({ prefer: ['cpu'] });
    const { file, counts } = await train(tf, dir, leak);
    expect(kernelHubStatus().listeners).toBe(0);
    const line = await expectLeakVerdict(file, counts);
    expect(line).toMatch(leak ? /tensor leak: yes, \+1 tensor \/ step/ : /tensor leak: none/);
  });

  it('useTf on a tfjs the program imported itself, handed over again and again: one memory sample per interval', async () => {
    await tfjs.setBackend('cpu');
    const dir = start();
    useTf(tfjs);
    useTf(tfjs);
    const { file, counts } = await train(tfjs, dir, true);
    const line = await expectLeakVerdict(file, counts);
    expect(line).toMatch(/tensor leak: yes, \+1 tensor \/ step/);
    const samples = readTrace(file).counters.filter((c) => c.cat === 'tfjs' && c.name === 'memory');
    expect(new Set(samples.map((c) => c.ts)).size).toBe(samples.length);
  });
});
