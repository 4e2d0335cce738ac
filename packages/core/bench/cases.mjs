// One benchmark case per process (the tracer is per process). Prints one JSON line.
// Usage: node cases.mjs <case> <outDir>
import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync, writeSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { posixFlood } from './posix-flood.mjs';

const [, , which, outDir] = process.argv;
const BURST = 100_000;
const BURSTS = 10;
const GAP_MS = 250;
mkdirSync(outDir, { recursive: true });

const core = await import(new URL('../dist/index.js', import.meta.url).href);
const { initializeLog, finalize, dftFn, getTracer } = core;

function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}
function traceSize() {
  return readdirSync(outDir).filter((f) => f.includes('.pfw')).reduce((a, f) => a + statSync(join(outDir, f)).size, 0);
}
function init(extra = {}) {
  return initializeLog({ enable: true, logFile: join(outDir, 'bench'), dataDir: join(outDir, 'data'), ...extra });
}

// A call that does a little real work, so the loop is not optimised away.
function work(i) {
  return (i * 2654435761) >>> 0;
}

/** ns per call over bursts of 100k, median of BURSTS bursts; total process CPU per call. */
function burst(fn) {
  let sink = 0;
  for (let i = 0; i < BURST; i++) sink ^= fn(i); // warm-up
  const per = [];
  const cpu0 = cpuNs();
  for (let b = 0; b < BURSTS; b++) {
    // Bursts, not a flood: the program computes between them, and the writer thread catches up.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, GAP_MS);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < BURST; i++) sink ^= fn(i);
    per.push(Number(process.hrtime.bigint() - t0) / BURST);
  }
  return { nsPerCall: median(per), cpuPerCall: (cpuNs() - cpu0) / (BURST * BURSTS), sink };
}

const cases = {
  untraced() {
    return burst(work);
  },
  traced() {
    init();
    const f = dftFn('bench').log(work);
    const r = burst(f);
    const cpu0 = cpuNs();
    finalize(); // formatting + gzip of what is still buffered counts too
    const events = BURST * (BURSTS + 1);
    return { ...r, cpuPerCall: r.cpuPerCall + (cpuNs() - cpu0) / events, bytesPerEvent: traceSize() / events };
  },
  naive() {
    // The obvious tracer: JSON.stringify each event and write it as a line.
    const fd = openSync(join(outDir, 'naive.jsonl'), 'w');
    const pid = process.pid;
    let id = 0;
    const f = (i) => {
      const t0 = performance.now();
      const r = work(i);
      const t1 = performance.now();
      writeSync(fd, JSON.stringify({ id: ++id, name: 'work', cat: 'bench', pid, tid: pid, ts: Math.floor((performance.timeOrigin + t0) * 1000), dur: Math.floor((t1 - t0) * 1000), ph: 'X', args: { level: 1, p_idx: -1 } }) + '\n');
      return r;
    };
    const r = burst(f);
    closeSync(fd);
    return r;
  },
  // The fs flood: POSIX read events as the fs tracer records them, written by zlib.
  posix() {
    return posixEvents(false);
  },
  posixWarm() {
    return posixEvents(true);
  },
  // The same flood folded (DFTRACER_ENABLE_AGGREGATION=1, 1 s intervals): the cost of a folded event.
  posixFolded() {
    return posixEvents(true, { gzipEncoder: 'auto', enableAggregation: true });
  },
  posixLevel2() {
    return posixEvents(true, { compressionLevel: 2 });
  },
  clock() {
    // The floor of any tracer that times a call: the two clock reads (36 ns each on the machine
    // where the targets were set).
    return burst((i) => (performance.now() + performance.now() > 0 ? work(i) : 0));
  },
  eagerPosix() {
    return eagerEvents(false);
  },
  eagerWarm() {
    return eagerEvents(true);
  },
  fsUntraced() {
    return fsLoop(false);
  },
  fsTraced() {
    return fsLoop(true);
  },
  fsPaired() {
    return fsPaired();
  },
  tracedPaired() {
    return tracedPaired();
  },
  countersPaired() {
    return countersPaired();
  },
};

/**
 * The cost of counters at the default interval on traced calls: sessions with counters on (the
 * default DFTRACER_COUNTERS_INTERVAL_MS) and off alternate (ABBA), each a ROUND_MS stretch of traced
 * calls (10 samples of the default interval); per round the on ÷ off ratio of ns per call and of
 * process CPU per call. Median over rounds.
 */
function countersPaired() {
  const ROUND_MS = 1000;
  const ROUNDS = 8;
  const session = (on) => {
    init(on ? {} : { countersIntervalMs: 0 });
    const f = dftFn('bench').log(work);
    let sink = 0;
    for (let i = 0; i < BURST; i++) sink ^= f(i); // warm
    let calls = 0;
    const cpu0 = cpuNs();
    const t0 = process.hrtime.bigint();
    const end = performance.now() + ROUND_MS;
    while (performance.now() < end) {
      for (let i = 0; i < 10_000; i++) sink ^= f(i);
      calls += 10_000;
    }
    const ns = Number(process.hrtime.bigint() - t0) / calls;
    const cpu = (cpuNs() - cpu0) / calls;
    finalize();
    return { ns, cpu, sink };
  };
  session(true);
  session(false);
  const wall = [];
  const cpu = [];
  let onNs = [];
  let offNs = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r & 1 ? [false, true] : [true, false];
    const res = {};
    for (const on of order) res[on] = session(on);
    wall.push(res.true.ns / res.false.ns);
    cpu.push(res.true.cpu / res.false.cpu);
    onNs.push(res.true.ns);
    offNs.push(res.false.ns);
  }
  return { wallRatio: median(wall), cpuRatio: median(cpu), onNs: median(onNs), offNs: median(offNs), spread: Math.max(...wall) - Math.min(...wall) };
}

const POSIX_EVENTS = 1_000_000;

/**
 * 1 M POSIX-read-shaped events through the tracer: sequential 4 KiB reads over 64 files. `warm`:
 * measure a second million, after the first has warmed the JIT of both threads (a long-running
 * program's steady state; the cold figure includes compiling the encoder). `options`: more
 * initializeLog options (a compression level).
 */
function posixEvents(warm, options = {}) {
  init({ disableIo: true, ...options });
  const emit = posixFlood(getTracer(), join(outDir, 'data'));
  const emitAll = () => emit(POSIX_EVENTS);
  if (warm) {
    emitAll();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500); // the writer catches up
  }
  const cpu0 = cpuNs();
  const w0 = process.hrtime.bigint();
  emitAll();
  const mainNs = Number(process.hrtime.bigint() - w0) / POSIX_EVENTS;
  finalize();
  return { nsPerCall: mainNs, cpuPerCall: (cpuNs() - cpu0) / POSIX_EVENTS, bytesPerEvent: traceSize() / (warm ? 2 : 1) / POSIX_EVENTS };
}

/**
 * The eager reference (661 ns/event on the machine where the targets were set): a hand-written
 * template per event into a 1 MiB string, gzip level 1 per chunk, writeSync — for the same POSIX
 * read lines the tracer writes in the posix case. `warm` as in posixEvents.
 */
function eagerEvents(warm) {
  const fd = openSync(join(outDir, 'eager.pfw.gz'), 'w');
  const pid = process.pid;
  const head = `,"name":"read","cat":"POSIX","pid":${pid},"tid":${pid},"ts":`;
  const hashes = Array.from({ length: 64 }, (_, k) => `"${(0x1000000000000000n + BigInt(k) * 0x9e3779b97f4a7n).toString(16)}"`);
  let text = '';
  let off = 0;
  let id = 0;
  const emitAll = () => {
    for (let i = 0; i < POSIX_EVENTS; i++) {
      const ts = Math.floor((performance.timeOrigin + performance.now()) * 1000);
      const k = (i >> 8) & 63;
      text += `{"id":${++id}${head}${ts},"dur":${2 + (i & 3)},"ph":"X","args":{"hhash":"9f1b3e7a2c4d5e6f","level":1,"p_idx":-1,"fhash":${hashes[k]},"count":4096,"offset":${off},"ret":4096}}\n`;
      if (text.length >= 1 << 20) {
        writeSync(fd, gzipSync(text, { level: 1 }));
        text = '';
      }
      off = (i & 255) === 255 ? 0 : off + 4096;
    }
  };
  if (warm) emitAll();
  const cpu0 = cpuNs();
  const w0 = process.hrtime.bigint();
  emitAll();
  if (text.length > 0) writeSync(fd, gzipSync(text, { level: 1 }));
  closeSync(fd);
  const ns = Number(process.hrtime.bigint() - w0) / POSIX_EVENTS;
  return { nsPerCall: ns, cpuPerCall: (cpuNs() - cpu0) / POSIX_EVENTS, bytesPerEvent: statSync(join(outDir, 'eager.pfw.gz')).size / (warm ? 2 : 1) / POSIX_EVENTS };
}

function fsLoop(traced) {
  const dir = join(outDir, 'data');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'cached.bin');
  writeFileSync(file, Buffer.alloc(1 << 20, 7));
  if (traced) init();
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(4096);
  const read = (i) => readSync(fd, buf, 0, 4096, (i & 255) * 4096);
  const r = burst(read);
  closeSync(fd);
  if (traced) finalize();
  return r;
}

/**
 * fsLoop's traced and untraced reads in one process, burst by burst: the original readSync (taken
 * before the fs plugin wraps it) and the wrapped one on the same traced fd, alternating (ABBA) with
 * the same gaps, so both sides meet the same moment of this VM. Overhead = median of the
 * per-pair ratios.
 */
function fsPaired() {
  const dir = join(outDir, 'data');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'cached.bin');
  writeFileSync(file, Buffer.alloc(1 << 20, 7));
  const raw = readSync; // the live binding follows the patch; this copy keeps the original
  init();
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(4096);
  const untraced = (i) => raw(fd, buf, 0, 4096, (i & 255) * 4096);
  const traced = (i) => readSync(fd, buf, 0, 4096, (i & 255) * 4096);
  if (raw === readSync) throw new Error('fsPaired: readSync was not wrapped');
  const [a, b] = alternate([untraced, traced], (sink) => {
    if (sink !== BURST * 4096) throw new Error('fsPaired: short read');
  });
  closeSync(fd);
  finalize();
  return { untracedNs: median(a), tracedNs: median(b), ratio: median(a.map((x, k) => b[k] / x)) };
}

/**
 * The main-thread figures of untraced, clock and traced, measured in one traced process with
 * their bursts alternating, so that all three meet the same moments of this VM (separate
 * processes drift by tens of ns). Per round: added = traced − untraced, floor = clock − untraced;
 * each figure is the median over rounds.
 */
function tracedPaired() {
  init();
  const traced = dftFn('bench').log(work);
  const clock = (i) => (performance.now() + performance.now() > 0 ? work(i) : 0);
  const [u, c, t] = alternate([work, clock, traced]);
  const added = t.map((x, k) => x - u[k]);
  const floor = c.map((x, k) => x - u[k]);
  finalize();
  return { addedNs: median(added), floorNs: median(floor), aboveFloorNs: median(added.map((x, k) => x - floor[k])) };
}

/**
 * Bursts of each of `fns` in turn, BURSTS rounds after a warm-up round, the order reversed every
 * other round; `check(sink)` vets each burst's result. Returns each fn's ns per call, by round.
 */
function alternate(fns, check = () => {}) {
  const one = (fn) => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, GAP_MS);
    let sink = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < BURST; i++) sink += fn(i);
    const ns = Number(process.hrtime.bigint() - t0) / BURST;
    check(sink);
    return ns;
  };
  for (const fn of fns) one(fn);
  const out = fns.map(() => []);
  for (let r = 0; r < BURSTS; r++) {
    const order = fns.map((_, k) => k);
    if (r & 1) order.reverse();
    for (const k of order) out[k].push(one(fns[k]));
  }
  return out;
}

const fn = cases[which];
if (!fn) throw new Error(`unknown case ${which}; one of ${Object.keys(cases).join(', ')}`);
process.stdout.write(JSON.stringify(fn()) + '\n');
