/**
 * The API tour of @dftracer/core in one file: functions, methods, regions, iterables, metadata.
 *
 *   DFTRACER_ENABLE=1 node apps/examples/dist/core-basics.js
 */
import { dftFn, finalize, initializeLog, logMetadata } from '@dftracer/core';

const log = initializeLog({ logFile: process.env.DFTRACER_LOG_FILE ?? './core-basics' });
const d = dftFn('compute', 'basics');

const square = d.log(function square(x: number) {
  return x * x;
});

class Trainer {
  @d.log
  step(batch: number[], epoch: number, step: number) {
    return batch.reduce((a, b) => a + square(b), 0) + epoch + step;
  }
}

const trainer = new Trainer();
let step = 0;
for (const batch of d.iter([[1, 2], [3, 4], [5, 6]], { name: 'batches' })) trainer.step(batch, 1, ++step);
{
  using _r = d.start({ phase: 'eval' });
  square(7);
}
await d.run(async () => square(await Promise.resolve(8)));
logMetadata('model', 'toy');
finalize();
console.log(log.enabled ? `trace written to ${log.file}` : 'tracing is off: set DFTRACER_ENABLE=1');
