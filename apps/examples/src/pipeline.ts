/**
 * A small data pipeline used by the examples: it writes a dataset of shards, reads them back the
 * ways real loaders do (readFile, streams, FileHandle reads) and computes over the bytes.
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dftFn } from '@dftracer/core';

const data = dftFn('data', 'dataset');
const compute = dftFn('compute', 'step');

/** Writes `count` shards of `size` bytes with deterministic content. */
export const writeShards = data.log(function writeShards(dir: string, count: number, size: number): string[] {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const f = join(dir, `shard-${String(i).padStart(3, '0')}.bin`);
    const buf = Buffer.alloc(size);
    for (let j = 0; j < size; j++) buf[j] = (i * 31 + j * 7) & 0xff;
    writeFileSync(f, buf);
    files.push(f);
  }
  return files;
});

/** Reads one shard whole, the way most loaders do. */
export const loadShard = data.log(async function loadShard(file: string): Promise<Buffer> {
  return readFile(file);
});

/** Reads a shard as a stream of chunks. */
export const streamShard = data.log(function streamShard(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let n = 0;
    createReadStream(file, { highWaterMark: 16 * 1024 })
      .on('data', (c) => (n += (c as Buffer).length))
      .on('end', () => resolve(n))
      .on('error', reject);
  });
});

/** Reads the header and a slice of a shard through a FileHandle (pread). */
export const sampleShard = data.log(async function sampleShard(file: string, offset: number, length: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, offset);
    return buf;
  } finally {
    await fh.close();
  }
});

/** A compute step: a checksum and a small dense matrix product over the bytes. */
export const computeStep = compute.log(function computeStep(bytes: Buffer, epoch: number, step: number): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i++) sum = (sum * 31 + bytes[i]!) >>> 0;
  const n = 48;
  const a = new Float64Array(n * n).map((_, i) => (bytes[i % bytes.length]! + epoch) / 255);
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) c[i * n + j]! += a[i * n + k]! * a[k * n + j]!;
  return (sum + Math.round(c[step % (n * n)]! * 1000)) >>> 0;
});

/** Yields shards as a loader would, one after another. */
export async function* shards(files: readonly string[]): AsyncGenerator<Buffer> {
  for (const f of files) yield await loadShard(f);
}
