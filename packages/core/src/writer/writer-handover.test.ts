import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import { runModule } from '../test-util/node-process.test-util.js';

/**
 * A program that records faster than the writer thread writes fills its queue; the traced thread
 * then waits for a free slot rather than encoding itself (handing over costs the traced thread
 * less time: core README, "Performance"). The file keeps
 * every event once and in order.
 */
const PROGRAM = `
import { initializeLog, finalize, getTracer } from CORE;
initializeLog({ logFile: process.env.LOG_FILE });
const t = getTracer();
const fhash = t.hashFile(process.cwd() + '/data.bin');
let step = 0;
const emit = (n) => { for (let i = 0; i < n; i++) t.emit('read', 'POSIX', t.now(), 0, { fhash, count: 4096, offset: step * 4096, ret: 4096, step: step++ }); };
const phases = [];
emit(200000); // a flood: the writer falls behind
phases.push({ ...t.batches });
await new Promise((r) => setTimeout(r, 300)); // the program pauses
for (let k = 0; k < 20; k++) { emit(500); await new Promise((r) => setTimeout(r, 5)); } // and records slowly
phases.push({ ...t.batches });
finalize();
console.log(JSON.stringify({ phases, steps: step }));
`;

describe('writer thread hand-over under a flood', () => {
  it('hands every flush to the writer while it is behind and after a pause, and keeps every event in order', () => {
    const dir = tempDir('dft-handover-');
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_DATA_DIR: 'all', DFTRACER_WRITE_BUFFER_SIZE: '32768', LOG_FILE: `${dir}/flood` });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { phases, steps } = JSON.parse(r.stdout) as { phases: Array<{ handed: number; here: number }>; steps: number };
    const [flood, after] = phases as [{ handed: number; here: number }, { handed: number; here: number }];
    // 200 000 events in 32 KiB buffers (170 events each): every full buffer went to the writer;
    // the one flush here is the header, written at init before the writer starts.
    expect(flood).toEqual({ handed: Math.floor(200000 / 170), here: 1 });
    expect(after.handed).toBeGreaterThan(flood.handed);
    expect(after.here).toBe(1);

    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    const reads = t.complete.filter((e) => e.name === 'read');
    expect(reads.length).toBe(steps);
    expect(reads.map((e) => e.args!.step)).toEqual(Array.from({ length: steps }, (_, i) => i));
    expect(t.complete.find((e) => e.name === 'end')!.args!.num_events).toBe(t.events.length - 1);
  });
});
