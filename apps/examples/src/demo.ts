/**
 * The main demo: a traced data pipeline. It writes a dataset, loads it three ways, computes on
 * it for two epochs with a prefetching loader, and prints where the trace is and what it holds.
 *
 *   npx -y pnpm@9 demo   (from the repository root)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { dftFn, finalize, initializeLog, logMetadata } from '@dftracer/core';
import { computeStep, sampleShard, shards, streamShard, writeShards } from './pipeline.js';

const root = mkdtempSync(join(tmpdir(), 'dftracer-demo-'));
const dataDir = join(root, 'data');
// In code, so the demo traces without any environment; DFTRACER_* variables work the same way.
const log = initializeLog({ enable: true, logFile: join(root, 'demo'), dataDir });
logMetadata('demo', 'core pipeline');

const pipeline = dftFn('pipeline', 'train');
const epochs = dftFn('pipeline', 'epoch');

await pipeline.run(async () => {
  const files = writeShards(dataDir, 8, 64 * 1024);
  const streamed = await Promise.all(files.slice(0, 2).map((f) => streamShard(f)));
  const header = await sampleShard(files[0]!, 4096, 512);
  let checksum = header[0]!;
  for (let epoch = 1; epoch <= 2; epoch++) {
    epochs.update({ epoch });
    await epochs.run(async () => {
      let step = 0;
      for await (const shard of dftFn('dataloader', 'fetch').iter(shards(files), { name: 'fetch' })) {
        checksum ^= computeStep(shard, epoch, ++step);
      }
    });
  }
  console.log(`streamed ${streamed.join(' + ')} bytes, checksum ${checksum}`);
});

finalize();

// What the trace holds, read back with nothing but zlib.
const text = gunzipSync(readFileSync(log.file!)).toString('utf8');
const counts = new Map<string, number>();
let lines = 0;
for (const line of text.split('\n')) {
  if (!line.startsWith('{')) continue; // the `[` and `]` lines around the records
  lines++;
  const e = JSON.parse(line) as { ph: string; cat: string; name: string };
  if (e.ph !== 'X') continue;
  const k = `${e.cat}/${e.name}`;
  counts.set(k, (counts.get(k) ?? 0) + 1);
}
console.log(`\ntrace: ${log.file} (${lines} lines)`);
for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${k}`);
console.log('\nOpen it in https://ui.perfetto.dev or summarise it with: npx -y pnpm@9 dftracer summary ' + log.file);
