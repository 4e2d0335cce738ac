/**
 * A training step and an evaluation, traced with pydftracer's taxonomy: compute.forward,
 * compute.backward (forward nested in it: variableGrads runs the forward pass on the tape) and
 * compute.step; pipeline.evaluate with a dataloader.fetch per batch.
 */
import * as tf from '@tensorflow/tfjs';
import { ai } from '@dftracer/ai';
import type { Batch, DataLoader } from './loader.js';
import { accuracyOf, lossOf } from './model.js';

export class Trainer {
  constructor(
    /** The model the steps run; swap in a compiled one (dynamo) any time. */
    public model: tf.LayersModel,
    readonly optimizer: tf.Optimizer = tf.train.adam(0.005),
  ) {}

  @ai.compute.forward
  forward(xs: tf.Tensor, ys: tf.Tensor): tf.Scalar {
    return lossOf(this.model, xs, ys);
  }

  @ai.compute.backward
  backward({ xs, ys }: Batch): { value: tf.Scalar; grads: tf.NamedTensorMap } {
    return tf.variableGrads(() => this.forward(xs, ys));
  }

  @ai.compute.step
  step(grads: tf.NamedTensorMap): void {
    this.optimizer.applyGradients(grads as Parameters<tf.Optimizer['applyGradients']>[0]);
  }

  /** One training step on a batch (disposed after); resolves to the loss (read asynchronously, as WebGPU needs). */
  async trainStep(batch: Batch): Promise<number> {
    const { value, grads } = this.backward(batch);
    this.step(grads);
    tf.dispose([grads, batch.xs, batch.ys]);
    const loss = (await value.data())[0]!;
    value.dispose();
    return loss;
  }

  /** Accuracy over a loader's batches. */
  @ai.pipeline.evaluate
  async evaluate(loader: DataLoader): Promise<number> {
    let right = 0;
    for await (const { xs, ys } of ai.dataloader.fetch.iter(loader.batches())) {
      right += (await accuracyOf(this.model, xs, ys)) * xs.shape[0];
      tf.dispose([xs, ys]);
    }
    return right / loader.dataset.length;
  }
}
