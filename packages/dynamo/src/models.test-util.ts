/** The seed documents' models in TensorFlow.js. Not shipped. */
import * as tf from '@tensorflow/tfjs';

/** Seed 000's SimpleModel: conv(3→16, 3×3) → relu → maxpool 2 → flatten → dense(16·15·15 → 10). */
export function simpleModel(): tf.Sequential {
  return tf.sequential({
    name: 'SimpleModel',
    layers: [
      tf.layers.conv2d({ inputShape: [32, 32, 3], filters: 16, kernelSize: 3, strides: 1, name: 'conv', kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }) }),
      tf.layers.reLU({ name: 'relu' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool' }),
      tf.layers.flatten({ name: 'flatten' }),
      tf.layers.dense({ units: 10, name: 'fc', kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) }),
    ],
  });
}

/** Seed 001's ConvNet: conv1(1→32) → relu → conv2(32→64) → relu → maxpool 2 → flatten → fc1(9216→128) → relu → fc2(128→10). */
export function convNet(): tf.Sequential {
  return tf.sequential({
    name: 'ConvNet',
    layers: [
      tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 32, kernelSize: 3, name: 'conv1', activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 3 }) }),
      tf.layers.conv2d({ filters: 64, kernelSize: 3, name: 'conv2', activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 4 }) }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool' }),
      tf.layers.flatten({ name: 'flatten' }),
      tf.layers.dense({ units: 128, activation: 'relu', name: 'fc1', kernelInitializer: tf.initializers.glorotUniform({ seed: 5 }) }),
      tf.layers.dense({ units: 10, name: 'fc2', kernelInitializer: tf.initializers.glorotUniform({ seed: 6 }) }),
    ],
  });
}

/** Kernels tfjs's own profiler saw for `f`, without the customGrad scopes it also lists (`fusedConv2d__op`). */
export async function profiledKernels(f: () => tf.Tensor | tf.Tensor[]): Promise<string[]> {
  const backend = tf.getBackend();
  const p = await tf.profile(() => f() as tf.Tensor);
  tf.dispose(p.result as tf.Tensor);
  return p.kernels.map((k) => k.name).filter((n) => tf.getKernel(n, backend) !== undefined);
}
