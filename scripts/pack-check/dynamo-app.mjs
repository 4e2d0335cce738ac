// A model compiled with a dftracer dynamo backend: its kernels become `dynamo` events.
import { finalize, initializeLog } from '@dftracer/core';
import { compile, createBackend } from '@dftracer/dynamo';
import * as tf from '@tensorflow/tfjs';

initializeLog();
const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 3, activation: 'relu' }), tf.layers.dense({ units: 2 })] });
const compiled = compile(model, { backend: createBackend({ name: 'mlp', epoch: 1 }) });
const out = compiled.predict(tf.ones([5, 4]));
finalize();
console.log(`output ${JSON.stringify(out.shape)}`);
