import * as tf from '@tensorflow/tfjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export { tf };

/** The tracer's clock, computed here independently of the package. */
export const clockUs = (): number => Math.floor((performance.timeOrigin + performance.now()) * 1000);

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dftracer-profiler-'));
}

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

export interface TraceEvent {
  id: number;
  name: string;
  cat: string;
  pid: number;
  tid: number;
  ts: number;
  dur: number;
  ph: string;
  args: Record<string, unknown> & { level?: number; p_idx?: number };
}

/** Every complete event of a DFTracer trace file (plain or multi-member gzip). */
export function readTrace(file: string): TraceEvent[] {
  const raw = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  const out: TraceEvent[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l === '' || l === '[' || l === ']') continue;
    const e = JSON.parse(l) as TraceEvent;
    if (e.ph === 'X') out.push(e);
  }
  return out;
}

/** Slices on one track that overlap without nesting (Perfetto cannot show them). */
export function overlaps(events: readonly { tid: number; ts: number; dur: number; name: string }[]): string[] {
  const problems: string[] = [];
  const byTid = new Map<number, typeof events[number][]>();
  for (const e of events) {
    let l = byTid.get(e.tid);
    if (l === undefined) byTid.set(e.tid, (l = []));
    l.push(e);
  }
  for (const [tid, list] of byTid) {
    const sorted = [...list].sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const open: (typeof events)[number][] = [];
    for (const e of sorted) {
      while (open.length > 0 && open[open.length - 1]!.ts + open[open.length - 1]!.dur <= e.ts) open.pop();
      const top = open[open.length - 1];
      if (top !== undefined && e.ts + e.dur > top.ts + top.dur) problems.push(`tid ${tid}: ${e.name}@${e.ts}+${e.dur} crosses ${top.name}@${top.ts}+${top.dur}`);
      open.push(e);
    }
  }
  return problems;
}
