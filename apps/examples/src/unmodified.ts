/**
 * An unmodified program: it imports nothing from dftracer. Traced from the outside, configured by
 * environment only (DFTracer's LD_PRELOAD mode):
 *
 *   cd apps/examples
 *   DFTRACER_ENABLE=1 DFTRACER_DATA_DIR=./corpus node --import @dftracer/core/register dist/unmodified.js ./corpus
 *
 * It writes a small text corpus, then counts its words three ways loaders read files: whole
 * (readFileSync), through fs/promises, and as a stream. Only files under DFTRACER_DATA_DIR are traced.
 */
import { createReadStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const dir = process.argv[2] ?? './corpus';
const words = ['trace', 'tensor', 'epoch', 'batch', 'kernel', 'file', 'read', 'write'];
mkdirSync(dir, { recursive: true });
for (let i = 0; i < 6; i++) {
  const text = Array.from({ length: 2000 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
  writeFileSync(join(dir, `doc-${i}.txt`), text);
}

const count = (text: string) => text.split(/\s+/).filter(Boolean).length;
const files = readdirSync(dir).filter((f) => f.endsWith('.txt')).map((f) => join(dir, f));
let total = 0;
for (const f of files.slice(0, 2)) total += count(readFileSync(f, 'utf8'));
for (const t of await Promise.all(files.slice(2, 4).map((f) => readFile(f, 'utf8')))) total += count(t);
for (const f of files.slice(4)) {
  let text = '';
  for await (const chunk of createReadStream(f, { encoding: 'utf8', highWaterMark: 4096 })) text += chunk;
  total += count(text);
}
console.log(`${files.length} files, ${total} words`);
