/** Test support: a real tracer writing an uncompressed trace, read back as events. Not shipped. */
import { finalize, initializeLog } from '@dftracer/core';
import { readTrace, tempDir, type TraceEvent } from '@dftracer/testing';
import { join } from 'node:path';

/** Starts the process's tracer on a fresh file; returns a function that finalizes it and reads its complete events. */
export function startTrace(stem = 'dynamo'): (() => TraceEvent[]) & { readonly file: string } {
  const dir = tempDir('dft-dynamo-');
  const log = initializeLog({ enable: true, logFile: join(dir, stem), dataDir: join(dir, 'none'), compression: false });
  const file = log.file!;
  const stop = () => {
    finalize();
    return readTrace(file).complete;
  };
  return Object.assign(stop, { file });
}
