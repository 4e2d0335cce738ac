import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createBackend } from './index.js';
import { convNet, profiledKernels } from './models.test-util.js';
import { ancestry, type TraceEvent } from '@dftracer/testing';
import { startTrace } from './trace.test-util.js';

let stop: () => TraceEvent[];
const checks: ((events: TraceEvent[]) => void)[] = [];

beforeAll(async () => {
  await tf.setBackend('cpu');
  stop = startTrace('autograd');
});

afterAll(() => {
  const events = stop();
  for (const c of checks) c(events);
});

const STEPS = 2;
const BATCH = 1;

/**
 * A turn of the event loop. Each training step is over a CPU second of tfjs' JavaScript kernels;
 * run back to back with no turn between them, on a busy machine the steps kept vitest's worker
 * from reading its runner's replies for over a minute, and the run failed on its RPC timeout.
 */
const turn = () => new Promise<void>((r) => setImmediate(r));

/** A few steps of the seed's training loop: Adam on cross-entropy, the forward pass compiled. */
async function train(name: string, autograd: boolean) {
  const model = convNet();
  const optimizer = tf.train.adam(1e-3);
  const m = compile(model, { backend: createBackend({ name, autograd }) });
  const x = tf.randomNormal([BATCH, 28, 28, 1], 0, 1, 'float32', 11);
  const y = tf.oneHot(tf.tensor1d([3, 7].slice(0, BATCH), 'int32'), 10);
  const losses: number[] = [];
  const predicted = m.predict(x) as tf.Tensor;
  for (let step = 0; step < STEPS; step++) {
    await turn();
    const loss = optimizer.minimize(() => tf.losses.softmaxCrossEntropy(y, m.apply(x, { training: true }) as tf.Tensor) as tf.Scalar, true)!;
    losses.push(loss.dataSync()[0]!);
    loss.dispose();
  }
  await turn();
  return { model, m, x, y, optimizer, losses, predicted };
}

const calls = (events: TraceEvent[], name: string) => events.filter((e) => e.name === name);
const inside = (events: TraceEvent[], call: TraceEvent) => events.filter((e) => isDescendant(events, e, call));
function isDescendant(events: TraceEvent[], e: TraceEvent, call: TraceEvent): boolean {
  const byId = new Map(events.map((x) => [x.id, x]));
  for (let p = byId.get(e.args.p_idx); p !== undefined; p = byId.get(p.args.p_idx)) if (p.id === call.id) return true;
  return false;
}

describe('autograd', () => {
  it('traces the backward kernels of optimizer.minimize with grad_enabled 1 when autograd is on', async () => {
    const run = await train('convnet', true);
    expect(run.losses.every(Number.isFinite)).toBe(true);
    // The profiler's list of the same training step: every kernel tfjs ran, loss and Adam included.
    const all = await profiledKernels(() => run.optimizer.minimize(() => tf.losses.softmaxCrossEntropy(run.y, run.m.apply(run.x, { training: true }) as tf.Tensor) as tf.Scalar, true)!);
    checks.push((events) => {
      const predicts = calls(events, 'convnet.ConvNet.predict');
      expect(predicts).toHaveLength(1);
      const inference = inside(events, predicts[0]!).filter((e) => e.name.startsWith('function.'));
      expect(inference.length).toBeGreaterThan(5);
      expect(inference.every((e) => e.args.grad_enabled === 0)).toBe(true);

      const applies = calls(events, 'convnet.ConvNet.apply');
      expect(applies).toHaveLength(STEPS + 1);
      expect(applies.every((c) => c.args.grad_enabled === 1)).toBe(true);
      const forward = inside(events, applies[0]!).filter((e) => e.name.startsWith('function.'));
      expect(forward.every((e) => e.args.grad_enabled === 1)).toBe(true);
      expect(forward.map((e) => e.name)).toContain('function.Conv2D');

      // Backward kernels run after the call, by the optimizer: outside the call span, grad_enabled 1.
      const dynamo = events.filter((e) => e.cat === 'dynamo' && e.name.startsWith('function.'));
      const outside = dynamo.filter((e) => !ancestry(events, e).some((n) => n.includes('.ConvNet.')));
      expect(outside.length).toBeGreaterThan(0);
      expect(outside.every((e) => e.args.grad_enabled === 1)).toBe(true);
      const names = outside.map((e) => e.name.slice('function.'.length));
      const count = (k: string) => names.filter((n) => n === k).length;
      // Two convolutions: each needs its filter gradient; only conv2 needs its input gradient.
      expect(count('Conv2DBackpropFilter')).toBe(2 * (STEPS + 1));
      expect(count('Conv2DBackpropInput')).toBe(STEPS + 1);
      expect(count('MaxPoolGrad')).toBe(STEPS + 1);
      // Everything traced in the last (profiled) step is among what tfjs ran, in the same order. The
      // tape's Identity copies are left out of the order: the profiler lists a kernel after the
      // copies the engine makes of its tensors, the hook when the kernel itself returns.
      const lastCall = applies[STEPS]!;
      const lastStep = dynamo.filter((e) => e.ts >= lastCall.ts && (isDescendant(events, e, lastCall) || outside.includes(e))).map((e) => e.name.slice('function.'.length));
      expect(lastStep.length).toBeGreaterThan(20);
      const tally = (ks: string[]) => ks.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());
      const ran = tally(all);
      for (const [k, n] of tally(lastStep)) expect(n).toBeLessThanOrEqual(ran.get(k) ?? 0);
      const ordered = all.filter((k) => k !== 'Identity');
      let at = 0;
      for (const k of lastStep.filter((k) => k !== 'Identity')) {
        at = ordered.indexOf(k, at);
        expect(at).toBeGreaterThanOrEqual(0);
        at++;
      }
      // Adam's update and the loss are not part of the compiled call nor its backward pass.
      expect(names).not.toContain('Sqrt');
    });
  });

  it('traces forward kernels only when autograd is off', async () => {
    const run = await train('forwardonly', false);
    expect(run.losses.every(Number.isFinite)).toBe(true);
    checks.push((events) => {
      const applies = calls(events, 'forwardonly.ConvNet.apply');
      expect(applies).toHaveLength(STEPS);
      const all = events.filter((e) => e.cat === 'dynamo' && e.name.startsWith('function.'));
      const mine = all.filter((e) => ancestry(events, e).some((n) => n.startsWith('forwardonly.')));
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.some((e) => e.name === 'function.Conv2DBackpropFilter')).toBe(false);
      // No backward kernels of these steps anywhere: every kernel event after the first apply is inside a call.
      const firstApply = applies[0]!;
      const later = all.filter((e) => e.ts >= firstApply.ts);
      expect(later.every((e) => ancestry(events, e).some((n) => n.startsWith('forwardonly.')))).toBe(true);
    });
  });
});
