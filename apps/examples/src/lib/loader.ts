/**
 * A PyTorch-style Dataset / DataLoader over an image folder: `getItem` reads and decodes one file,
 * the loader reads a batch's items concurrently, collates them into tensors and yields batches.
 * Traced with pydftracer's taxonomy: `data.item` per sample (its file reads nested inside) and
 * `data.preprocess` for the collation.
 */
import { readFile } from 'node:fs/promises';
import * as tf from '@tensorflow/tfjs';
import { ai } from '@dftracer/ai';
import { CLASSES, decodePgm, listImageFolder, SIZE } from './images.js';

export interface Sample {
  pixels: Float32Array;
  label: number;
}

export class ImageDataset {
  readonly samples: { file: string; label: number }[];

  constructor(root: string) {
    this.samples = listImageFolder(root);
    if (this.samples.length === 0) throw new Error(`no .pgm images under ${root}`);
  }

  get length(): number {
    return this.samples.length;
  }

  /** One sample: the file read, its pixels scaled to [0, 1]. */
  @ai.data.item
  async getItem(index: number): Promise<Sample> {
    const { file, label } = this.samples[index]!;
    const { pixels } = decodePgm(await readFile(file));
    return { pixels: Float32Array.from(pixels, (p) => p / 255), label };
  }
}

export interface Batch {
  xs: tf.Tensor4D;
  ys: tf.Tensor2D;
}

/** Stacks samples into an NHWC image tensor and one-hot labels. */
export const collate = ai.data.preprocess(function collate(samples: Sample[]): Batch {
  const xs = new Float32Array(samples.length * SIZE * SIZE);
  samples.forEach((s, i) => xs.set(s.pixels, i * SIZE * SIZE));
  // tidy frees the label indices oneHot reads; the batch's two tensors are returned and kept.
  return tf.tidy(() => ({
    xs: tf.tensor4d(xs, [samples.length, SIZE, SIZE, 1]),
    ys: tf.oneHot(tf.tensor1d(samples.map((s) => s.label), 'int32'), CLASSES) as tf.Tensor2D,
  }));
});

export class DataLoader {
  constructor(
    readonly dataset: ImageDataset,
    readonly batchSize: number,
    readonly shuffle = true,
  ) {}

  get steps(): number {
    return Math.ceil(this.dataset.length / this.batchSize);
  }

  /** One epoch of batches; the order is shuffled by epoch number, the same on every run. */
  async *batches(epoch = 0): AsyncGenerator<Batch> {
    const order = Array.from({ length: this.dataset.length }, (_, i) => i);
    if (this.shuffle) {
      let s = (epoch + 1) * 2654435761;
      for (let i = order.length - 1; i > 0; i--) {
        s = (Math.imul(s ^ (s >>> 13), 1597334677) + 1) >>> 0;
        const j = s % (i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
    }
    for (let b = 0; b < order.length; b += this.batchSize) {
      const samples = await Promise.all(order.slice(b, b + this.batchSize).map((i) => this.dataset.getItem(i)));
      yield collate(samples);
    }
  }
}
