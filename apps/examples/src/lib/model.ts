/** The small CNN the examples train: two conv blocks and a dense classifier, for 28×28×1 images. */
import * as tf from '@tensorflow/tfjs';
import { CLASSES, SIZE } from './images.js';

export function buildCnn(): tf.Sequential {
  return tf.sequential({
    name: 'cnn',
    layers: [
      tf.layers.conv2d({ inputShape: [SIZE, SIZE, 1], filters: 8, kernelSize: 3, activation: 'relu', name: 'conv1' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool1' }),
      tf.layers.conv2d({ filters: 16, kernelSize: 3, activation: 'relu', name: 'conv2' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool2' }),
      tf.layers.flatten({ name: 'flatten' }),
      tf.layers.dense({ units: CLASSES, name: 'fc' }) // logits: the loss applies the softmax,
    ],
  });
}

/** Mean cross-entropy of a batch. */
export function lossOf(model: tf.LayersModel, xs: tf.Tensor, ys: tf.Tensor): tf.Scalar {
  return tf.losses.softmaxCrossEntropy(ys, model.apply(xs) as tf.Tensor) as tf.Scalar;
}

/** Fraction of the batch classified right (read asynchronously, as WebGPU needs). */
export async function accuracyOf(model: tf.LayersModel, xs: tf.Tensor, ys: tf.Tensor): Promise<number> {
  const right = tf.tidy(() => (model.predict(xs) as tf.Tensor).argMax(-1).equal(ys.argMax(-1)).mean());
  const v = (await right.data())[0]!;
  right.dispose();
  return v;
}
