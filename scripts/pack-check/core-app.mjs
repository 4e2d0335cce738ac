// An unmodified program: it knows nothing about tracing. `node --import @dftracer/core/register`
// must trace its file I/O from DFTRACER_* variables alone.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const dir = process.argv[2];
mkdirSync(dir, { recursive: true });
let total = 0;
for (let i = 0; i < 4; i++) {
  const f = join(dir, `part-${i}.bin`);
  writeFileSync(f, Buffer.alloc(4096, i));
  total += readFileSync(f).length + (await readFile(f)).length;
}
console.log(`read ${total} bytes`);
