import * as tf from '@tensorflow/tfjs';

export { tf };

/** The tracer's clock, computed here independently of the package. */
export const clockUs = (): number => Math.floor((performance.timeOrigin + performance.now()) * 1000);

/** A small CNN and one real training step on the cpu backend (conv → relu → flatten → dense, SGD). */
export async function smallCnn(): Promise<{ trainStep: () => void; dispose: () => void }> {
  await tf.setBackend('cpu');
  await tf.ready();
  const model = tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 4, kernelSize: 3, activation: 'relu' }),
      tf.layers.flatten(),
      tf.layers.dense({ units: 3, activation: 'softmax' }),
    ],
  });
  const opt = tf.train.sgd(0.01);
  const x = tf.randomNormal([4, 8, 8, 1]);
  const y = tf.oneHot(tf.tensor1d([0, 1, 2, 1], 'int32'), 3);
  const trainStep = (): void => {
    tf.tidy(() => {
      opt.minimize(() => tf.losses.softmaxCrossEntropy(y, model.predict(x) as tf.Tensor) as tf.Scalar);
    });
  };
  return {
    trainStep,
    dispose: () => {
      model.dispose();
      opt.dispose();
      x.dispose();
      y.dispose();
    },
  };
}

/** The kernels tfjs dispatched for fn, as tf.profile reports them (customGrad scopes left out: they are not kernels). */
export async function kernelsOf(fn: () => void): Promise<string[]> {
  const info = await tf.profile(fn);
  return info.kernels.map((k) => k.name).filter((n) => tf.getKernel(n, tf.getBackend()) !== undefined);
}
