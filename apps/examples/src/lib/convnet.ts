/** The seeds' ConvNet (conv 32, conv 64, max-pool, fc 128, fc 10) for 28×28×1 images, as a tfjs model. */
import * as tf from '@tensorflow/tfjs';

export function buildConvNet(): tf.Sequential {
  return tf.sequential({
    name: 'convnet',
    layers: [
      tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 32, kernelSize: 3, activation: 'relu', name: 'conv1' }),
      tf.layers.conv2d({ filters: 64, kernelSize: 3, activation: 'relu', name: 'conv2' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool' }),
      tf.layers.flatten({ name: 'flatten' }), // 12 × 12 × 64 = 9216
      tf.layers.dense({ units: 128, activation: 'relu', name: 'fc1' }),
      tf.layers.dense({ units: 10, name: 'fc2' }),
    ],
  });
}
