/**
 * A small image-classification dataset written as real files, laid out like torchvision's
 * ImageFolder: `<root>/<label>/<n>.pgm`, one 28×28 8-bit greyscale PGM image per file. Class k is a
 * bright square at one of ten places over noise: easy enough for a small CNN to learn in two epochs.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SIZE = 28;
export const CLASSES = 10;

/** A deterministic PRNG (mulberry32): the same dataset on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function drawImage(label: number, rand: () => number): Uint8Array {
  const px = new Uint8Array(SIZE * SIZE);
  for (let i = 0; i < px.length; i++) px[i] = Math.floor(rand() * 110);
  const square = (x0: number, y0: number, lo: number) => {
    for (let y = y0; y < Math.min(y0 + 7, SIZE); y++) for (let x = x0; x < Math.min(x0 + 6, SIZE); x++) px[y * SIZE + x] = lo + Math.floor(rand() * 60);
  };
  // A dimmer decoy anywhere, then the class's square, jittered.
  square(Math.floor(rand() * 22), Math.floor(rand() * 21), 100);
  square((label % 5) * 5 + Math.floor(rand() * 4), Math.floor(label / 5) * 12 + 2 + Math.floor(rand() * 5), 170);
  return px;
}

/** Encodes pixels as a binary PGM (P5) file. */
export function encodePgm(px: Uint8Array, width = SIZE, height = SIZE): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), px]);
}

/** Decodes a binary PGM (P5) file written by `encodePgm`. */
export function decodePgm(buf: Uint8Array): { width: number; height: number; pixels: Uint8Array } {
  const header = Buffer.from(buf.subarray(0, 32)).toString('ascii');
  const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(header);
  if (!m) throw new Error('not a binary 8-bit PGM image');
  const width = Number(m[1]);
  const height = Number(m[2]);
  return { width, height, pixels: buf.subarray(m[0].length, m[0].length + width * height) };
}

/** Writes `count` images under `root`, balanced over the classes; returns the number of files. */
export function writeImageFolder(root: string, count: number, seed = 7): number {
  const rand = rng(seed);
  for (let c = 0; c < CLASSES; c++) mkdirSync(join(root, String(c)), { recursive: true });
  for (let i = 0; i < count; i++) {
    const label = i % CLASSES;
    writeFileSync(join(root, String(label), `${String(i).padStart(5, '0')}.pgm`), encodePgm(drawImage(label, rand)));
  }
  return count;
}

/** The dataset's samples: every image file under `root` with its class from the folder name. */
export function listImageFolder(root: string): { file: string; label: number }[] {
  const samples: { file: string; label: number }[] = [];
  for (const dir of readdirSync(root).sort()) {
    const label = Number(dir);
    if (!Number.isInteger(label)) continue;
    for (const f of readdirSync(join(root, dir)).sort()) if (f.endsWith('.pgm')) samples.push({ file: join(root, dir, f), label });
  }
  return samples;
}
