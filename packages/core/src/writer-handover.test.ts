import { describe, expect, it } from 'vitest';
import { readTrace, runModule, tempDir, traceFiles, traceProblems } from './trace-reader.test-util.js';

/**
 * A program that records faster than the writer thread writes fills its queue; from then on the
 * traced thread formats its own flushes (cheaper than waiting), after the writer has written what
 * it held, and hands over again once the program records slowly. The file keeps every event once
 * and in the order each thread recorded them.
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
  it('formats on the traced thread while the writer is behind, hands over again after a pause, and keeps every event in order', () => {
    const dir = tempDir('dft-handover-');
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', DFTRACER_DATA_DIR: 'all', DFTRACER_WRITE_BUFFER_SIZE: '32768', LOG_FILE: `${dir}/flood` });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { phases, steps } = JSON.parse(r.stdout) as { phases: Array<{ handed: number; here: number }>; steps: number };
    const [flood, after] = phases as [{ handed: number; here: number }, { handed: number; here: number }];
    // The flood: some batches went to the writer until its queue was full, the rest were formatted here.
    expect(flood.handed).toBeGreaterThan(0);
    expect(flood.here).toBeGreaterThan(0);
    // After the pause, slow recording goes to the writer again.
    expect(after.handed).toBeGreaterThan(flood.handed);

    const t = readTrace(traceFiles(dir)[0]!);
    expect(traceProblems(t)).toEqual([]);
    const reads = t.complete.filter((e) => e.name === 'read');
    expect(reads.length).toBe(steps);
    expect(reads.map((e) => e.args!.step)).toEqual(Array.from({ length: steps }, (_, i) => i));
    expect(t.complete.find((e) => e.name === 'end')!.args!.num_events).toBe(t.complete.length - 1);
  });
});
