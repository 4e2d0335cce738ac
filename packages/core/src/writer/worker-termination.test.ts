import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems, type TraceEvent } from '@dftracer/testing';
import { start, writeModule } from '../test-util/node-process.test-util.js';

/**
 * Worker pools terminate workers at any instruction, also while they trace: in the middle of
 * compressing a batch (Node's zlib aborted the process when a worker died between creating and
 * initializing a stream) or holding the file's write lock (the program then waited 2 s for it).
 * The program here traces a little every 2 ms on its main thread while pairs of traced workers
 * spin and die, a hundred of them, with counters on and a small buffer so that the workers are
 * always flushing. It runs in a child process, so that an abort fails the test.
 */
const ROUNDS = 50;
/**
 * The longest the program's traced calls may sleep: a dead worker's lock is seen dead within
 * LOCK_WAIT_MS (the stall this guards against was the 2 s stale-lock wait).
 */
const MAX_SLEEP_MS = 100;
/** About 10 s each on an idle 2-core machine; far more where other jobs share it. */
const TIMEOUT_MS = 200_000;

const WORKER = `
import { initializeLog, dftFn } from CORE;
import { parentPort, workerData } from 'node:worker_threads';
initializeLog();
const ev = dftFn('w').log(function spin(step) { return step; });
if (workerData.events > 0) {
  for (let i = 0; i < workerData.events; i++) ev(i);
  process.exit(0);
}
for (let i = 0; ; i++) {
  ev(i);
  if (i === 200) parentPort.postMessage('tracing');
}
`;

const program = (worker: string) => `
import { initializeLog, dftFn, finalize } from CORE;
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
initializeLog({ logFile: process.env.LOG_FILE });
const tick = dftFn('main').log(function tick(step) { return step; });
// The main thread's time on the CPU and runnable but not running (ms): schedstat's first two
// fields. What is neither is time it slept: waiting on a lock, a queue, a mutex.
const schedstat = () => readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
const onCpu = (s) => Number(s[0]) / 1e6;
const runDelay = (s) => Number(s[1]) / 1e6;
let last = performance.now(), lastStat = schedstat(), maxGap = 0, maxCall = 0, maxCallSleep = 0, ticks = 0;
const timer = setInterval(() => {
  const t = performance.now();
  const stat = schedstat();
  maxGap = Math.max(maxGap, t - last - (runDelay(stat) - runDelay(lastStat)));
  last = t;
  lastStat = stat;
  for (let i = 0; i < 5; i++) {
    const a = performance.now();
    tick(ticks++);
    maxCall = Math.max(maxCall, performance.now() - a);
  }
  // The traced calls' time asleep: what the tracer made the program wait for (a lock, the
  // writer's queue), not what the machine's other jobs cost it.
  const after = schedstat();
  maxCallSleep = Math.max(maxCallSleep, performance.now() - t - (onCpu(after) - onCpu(stat)) - (runDelay(after) - runDelay(stat)));
}, 2);
const exiting = process.env.MODE === 'exit';
const workers = {};
for (let r = 0; r < ${ROUNDS}; r++) {
  const ws = [0, 1].map(() => {
    const events = exiting ? 50 + Math.floor(Math.random() * 500) : 0;
    const w = new Worker(${JSON.stringify(worker)}, { workerData: { events } });
    workers[process.pid * 1000 + w.threadId] = events;
    return w;
  });
  if (exiting) {
    await Promise.all(ws.map((w) => new Promise((res) => w.once('exit', res))));
  } else {
    await Promise.all(ws.map((w) => new Promise((res) => w.once('message', res))));
    await new Promise((res) => setTimeout(res, Math.random() * 20));
    await Promise.all(ws.map((w) => w.terminate()));
  }
}
clearInterval(timer);
finalize();
console.log(JSON.stringify({ maxGap, maxCall, maxCallSleep, ticks, workers }));
`;

interface Outcome {
  /**
   * The longest stretch between the main thread's 2 ms ticks less the time the scheduler held it
   * off the CPU meanwhile, and the longest traced call, ms (reported, not bounded: both include
   * waits in Node's own worker machinery, which the untraced program has too, longer the busier
   * the machine).
   */
  maxGap: number;
  maxCall: number;
  /**
   * The longest time the main thread slept inside a batch of traced calls, ms: wall time less
   * its time on the CPU and runnable (schedstat). A wait on the file's lock or the writer's queue
   * is sleep; the machine's other jobs taking the CPU are not, nor (single-threaded GC) is a
   * collection.
   */
  maxCallSleep: number;
  ticks: number;
  /** tid → the events the worker traced before process.exit() (0: it was terminated). */
  workers: Record<string, number>;
}

/**
 * Runs the program traced; returns its outcome and its directory. Not
 * spawnSync: a minute-long blocking call starves the test runner's own messages.
 */
async function spawnProgram(mode: 'terminate' | 'exit'): Promise<{ out: Outcome; dir: string }> {
  const dir = tempDir('dft-wterm-');
  const worker = writeModule(dir, WORKER, 'worker.mjs');
  // Single-threaded GC: a collection's time is then the main thread's CPU time. With parallel GC
  // the main thread sleeps while it waits for V8's helper threads, for as long as a busy machine
  // keeps them off the CPU (over 200 ms beside two CPU hogs): sleep that is not the tracer's.
  const env = { DFTRACER_ENABLE: '1', DFTRACER_DISABLE_IO: '1', DFTRACER_WRITE_BUFFER_SIZE: '4096', DFTRACER_COUNTERS_INTERVAL_MS: '10', LOG_FILE: join(dir, 'wterm'), MODE: mode };
  const run = start(writeModule(dir, program(worker)), env, ['--single-threaded-gc']);
  // A hundred worker starts: a machine shared with other jobs may take minutes.
  const kill = setTimeout(() => run.child.kill('SIGKILL'), TIMEOUT_MS - 10_000);
  const r = await run.exited;
  clearTimeout(kill);
  // An abort (node_zlib.cc's assertion, a fatal V8 error) shows as a signal and text on stderr.
  expect(r.stderr).toBe('');
  expect(r.signal).toBeNull();
  expect(r.status).toBe(0);
  return { out: JSON.parse(r.stdout) as Outcome, dir };
}

async function run(mode: 'terminate' | 'exit') {
  const { out, dir } = await spawnProgram(mode);
  expect(Object.keys(out.workers)).toHaveLength(2 * ROUNDS);
  const t = readTrace(traceFiles(dir)[0]!);
  expect(traceProblems(t)).toEqual([]);
  // The file's own count of records is what its end event says.
  const end = t.complete.at(-1)!;
  expect(end.name).toBe('end');
  expect(end.args!.num_events).toBe(t.events.length - 1);
  expect(t.lines.at(-1)).toBe(']');
  // The main thread is never terminated: every tick it traced is there.
  expect(t.complete.filter((e) => e.name === 'tick')).toHaveLength(out.ticks);
  return { out, steps: stepsByTid(t.complete) };
}

/** Each thread's `spin` steps, sorted. */
function stepsByTid(events: readonly TraceEvent[]): Map<number, number[]> {
  const by = new Map<number, number[]>();
  for (const e of events) {
    if (e.name !== 'spin') continue;
    const s = by.get(e.tid) ?? [];
    s.push(e.args!.step as number);
    by.set(e.tid, s);
  }
  for (const s of by.values()) s.sort((a, b) => a - b);
  return by;
}

describe('traced worker threads that die mid-write', () => {
  it('terminated a hundred times: no crash, the main thread never waits, the trace is valid and loses only what the dead had not written', async () => {
    const { out, steps } = await run('terminate');
    expect(out.maxCallSleep, `longest traced call ${out.maxCall} ms, longest gap ${out.maxGap} ms`).toBeLessThan(MAX_SLEEP_MS);
    // Each worker's events are a gap-free prefix of what it traced: its batches reached the file
    // whole and in order, up to the one it was writing or filling when it died.
    for (const [tid, s] of steps) {
      expect(tid in out.workers).toBe(true);
      expect(s.findIndex((v, i) => v !== i), `worker ${tid}`).toBe(-1);
    }
    // The workers traced for a while before dying: most of them wrote something.
    expect(steps.size).toBeGreaterThan(ROUNDS);
  }, TIMEOUT_MS);

  it('process.exit() inside a hundred traced workers: no crash, no wait, every event the workers traced is written', async () => {
    const { out, steps } = await run('exit');
    expect(out.maxCallSleep, `longest traced call ${out.maxCall} ms, longest gap ${out.maxGap} ms`).toBeLessThan(MAX_SLEEP_MS);
    // process.exit() runs the worker's exit hook, which hands over everything it buffered.
    for (const [tid, n] of Object.entries(out.workers)) expect(steps.get(Number(tid))?.length ?? 0, `worker ${tid}`).toBe(n);
  }, TIMEOUT_MS);
});
