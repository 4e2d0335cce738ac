// `pnpm bench` for @dftracer/core: every case in a fresh process, one table, ratios in one run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIXES, samples } from './streams.mjs';
import { gcPerIsolate } from './gc-lines.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const REPS = Number(process.env.BENCH_REPS ?? 3);
/**
 * `BENCH_ONLY=replay` prints only the replay table, `BENCH_ONLY=writer` only the writer
 * thread's table, `BENCH_ONLY=core` the rest.
 */
const ONLY = process.env.BENCH_ONLY ?? '';

/**
 * One process of `script` with `args` (the last is a fresh directory); its JSON line. `gc`: run
 * under --trace-gc and add the main isolate's and the other isolates' (the writer's) GCs and pause ms.
 */
function once(script, args, gc = false) {
  const dir = mkdtempSync(join(tmpdir(), 'dft-bench-'));
  const flags = gc ? ['--trace-gc', '--expose-gc'] : [];
  const p = spawnSync(process.execPath, [...flags, join(here, script), ...args, dir], { encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, DFTRACER_ENABLE: '1' } });
  rmSync(dir, { recursive: true, force: true });
  if (p.status !== 0) throw new Error(`bench ${script} ${args.join(' ')} failed:\n${p.stderr}`);
  const out = JSON.parse(p.stdout.trim().split('\n').findLast((l) => l.startsWith('{')));
  if (!gc) return out;
  const [main = { gcs: 0, ms: 0 }, ...others] = gcPerIsolate(p.stdout);
  return { ...out, mainGcs: main.gcs, mainGcMs: main.ms, writerGcs: others.reduce((a, g) => a + g.gcs, 0), writerGcMs: others.reduce((a, g) => a + g.ms, 0) };
}

/** Median of the repetitions, field by field. */
function median(results) {
  const out = {};
  for (const k of Object.keys(results[0])) {
    const v = results.map((x) => x[k]).sort((a, b) => a - b);
    out[k] = v[v.length >> 1];
  }
  return out;
}

function run(name) {
  return median(Array.from({ length: REPS }, () => once('cases.mjs', [name])));
}

const f = (x, d = 0) => (x === undefined ? '–' : x.toFixed(d));

if (ONLY === '' || ONLY === 'core') core();
if (ONLY === '' || ONLY === 'replay') replays();
if (ONLY === '' || ONLY === 'writer') writer();

function core() {
  const r = Object.fromEntries(['untraced', 'clock', 'traced', 'naive', 'posix', 'posixWarm', 'posixFolded', 'posixLevel2', 'eagerPosix', 'eagerWarm', 'fsUntraced', 'fsTraced', 'fsPaired', 'tracedPaired', 'countersPaired'].map((c) => [c, run(c)]));
  const rows = [
    ['main-thread ns per traced call (bursts of 100k), added to the call', f(r.traced.nsPerCall - r.untraced.nsPerCall), '≤ 150', `call alone ${f(r.untraced.nsPerCall, 1)} ns`],
    ['the same, untraced and traced bursts alternating in one process', f(r.tracedPaired.addedNs), '≤ 150', `${f(r.tracedPaired.aboveFloorNs)} above the clock floor measured alongside (${f(r.tracedPaired.floorNs)})`],
    ['naive JSON.stringify + write per event, added to the call', f(r.naive.nsPerCall - r.untraced.nsPerCall), '', `${f((r.naive.nsPerCall - r.untraced.nsPerCall) / (r.traced.nsPerCall - r.untraced.nsPerCall), 1)}× ours`],
    ['total process CPU ns per traced call (format + gzip included)', f(r.traced.cpuPerCall - r.untraced.cpuPerCall), '≤ 500', ''],
    ['total process CPU ns per POSIX read event (emit + format + gzip), first 1 M events of a process', f(r.posix.cpuPerCall), '≤ 500', `main thread ${f(r.posix.nsPerCall)} ns`],
    ['the same, the next 1 M events (warmed up)', f(r.posixWarm.cpuPerCall), '≤ 500', `main thread ${f(r.posixWarm.nsPerCall)} ns`],
    ['the same folded (DFTRACER_ENABLE_AGGREGATION=1, 1 s intervals): total CPU per event, folded ÷ written', `${f(r.posixFolded.cpuPerCall)} ns (${f(r.posixFolded.cpuPerCall / r.posixWarm.cpuPerCall, 2)}×)`, '< 1×', `main thread ${f(r.posixFolded.nsPerCall)} ns; ${f(r.posixFolded.bytesPerEvent, 3)} B per event`],
    ['compressed bytes per POSIX read event (1 M events)', f(r.posix.bytesPerEvent, 2), '≤ 8', `dftFn events: ${f(r.traced.bytesPerEvent, 2)} B`],
    ['the same at DFTRACER_COMPRESSION_LEVEL=2 (2 M events), and its total CPU warmed up', f(r.posixLevel2.bytesPerEvent, 2), '≤ 8', `${f(r.posixLevel2.cpuPerCall)} ns per event`],
    ['fs tracing overhead, 4 KiB cached readSync', `+${f((r.fsTraced.nsPerCall / r.fsUntraced.nsPerCall - 1) * 100)} %`, '≤ +40 %', `${f(r.fsUntraced.nsPerCall)} → ${f(r.fsTraced.nsPerCall)} ns (untraced and traced in separate processes)`],
    ['the same, untraced and traced bursts alternating in one process', `+${f((r.fsPaired.ratio - 1) * 100)} %`, '≤ +40 %', `${f(r.fsPaired.untracedNs)} → ${f(r.fsPaired.tracedNs)} ns (median of per-pair ratios)`],
    ['counters at the default interval (100 ms), traced calls: on ÷ off, ns per call', `${f((r.countersPaired.wallRatio - 1) * 100, 1)} %`, 'within noise', `${f(r.countersPaired.offNs, 1)} → ${f(r.countersPaired.onNs, 1)} ns; 1 s sessions alternating, round-to-round spread ${f(r.countersPaired.spread * 100, 1)} %`],
    ['the same, process CPU per call (writer thread and its counter timer included)', `${f((r.countersPaired.cpuRatio - 1) * 100, 1)} %`, 'within noise', ''],
  ];
  console.log(`\n@dftracer/core bench (node ${process.version}, median of ${REPS} processes)\n`);
  console.log('| measure | value | target | note |\n|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);

  // The same run, measured against the references the targets were derived from, so a slower
  // or faster machine reads the same: each target is a ratio to a reference, taken where it was set.
  const clockNs = r.clock.nsPerCall - r.untraced.nsPerCall;
  const mainAboveClock = r.traced.nsPerCall - r.untraced.nsPerCall - clockNs;
  const refs = [
    ['two performance.now() calls (the clock floor of a timed call)', f(clockNs), '72 ns where the targets were set'],
    ['main thread per traced call, above the clock floor', f(mainAboveClock), 'target 150 − 72 = 78 ns there'],
    ['the same, traced, untraced and clock bursts alternating in one process', f(r.tracedPaired.aboveFloorNs), `floor ${f(r.tracedPaired.floorNs)} ns alongside (72 where the targets were set)`],
    ['eager JS writer (template + gzip L1 + write), total CPU per POSIX read event', f(r.eagerPosix.cpuPerCall), `661 ns there for a 133-byte line; ${f(r.eagerPosix.bytesPerEvent, 2)} B/event`],
    ['eager JS writer, the next 1 M events (warmed up)', f(r.eagerWarm.cpuPerCall), ''],
    ['ours ÷ eager, total CPU per POSIX read event, first 1 M / next 1 M', `${f(r.posix.cpuPerCall / r.eagerPosix.cpuPerCall, 2)}× / ${f(r.posixWarm.cpuPerCall / r.eagerWarm.cpuPerCall, 2)}×`, 'target 500 ÷ 661 = 0.76×'],
    ['ours ÷ eager, main-thread ns per POSIX read event', `${f(r.posix.nsPerCall / r.eagerPosix.nsPerCall, 2)}×`, 'the eager writer formats and gzips on the calling thread'],
  ];
  console.log('\nReferences in the same run (targets as ratios to them)\n');
  console.log('| reference | value | note |\n|---|---|---|');
  for (const row of refs) console.log(`| ${row.join(' | ')} |`);

  // The soak of mixed traced I/O and compute (SOAK_SECONDS, default 60): events/s, RSS, lost events.
  if (process.env.SOAK_SECONDS !== '0') {
    const soak = spawnSync(process.execPath, [join(here, 'soak.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    process.stdout.write(`\n${soak.stdout}`);
    if (soak.status !== 0) process.exitCode = 1;
  }
}

/**
 * zlib on realistic streams: genuine DFTracer traces (streams.mjs) and adversarial mixes
 * replayed through the tracer, bytes and whole-process CPU per event.
 */
function replays() {
  const { files, reason } = samples();
  // DFTRACER_EXTRA_TRACES: `:`-separated paths of more traces to replay (the demo's, a user's).
  const extra = (process.env.DFTRACER_EXTRA_TRACES ?? '').split(':').filter((p) => p !== '').map((p) => `trace:${resolve(p)}`);
  const streams = [...extra, ...files.map((f) => `trace:${f}`), 'flood:posix', ...Object.keys(MIXES).map((m) => `mix:${m}`)];
  const rows = [];
  for (const stream of streams) {
    const z = median(Array.from({ length: REPS }, () => once('replay.mjs', [stream, 'zlib'])));
    rows.push([stream.startsWith('trace:') ? basename(stream.slice(6)) : stream.replace(/^mix:/, 'mix: ').replace(/^flood:posix$/, 'POSIX read flood'), f(z.events), f(z.bytesPerEvent, 2), f(z.cpuPerEvent)]);
  }
  console.log(`\nzlib -1 on replayed streams (node ${process.version}, median of ${REPS} processes each; CPU: whole process, recording included)\n`);
  if (reason) console.log(`Genuine trace replays skipped: ${reason}.\n`);
  console.log('| stream | events | B/ev | CPU ns/ev |\n|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

/**
 * The writer thread on the text path: zlib -1 (the default encoder) formats every event as text
 * for zlib, and its garbage is collected by scavenges that share the machine's cores (and V8's
 * helper threads) with the traced program. Per stream: CPU split between the traced thread and the
 * rest (the writer and V8's helpers), and the writer isolate's GCs.
 */
function writer() {
  const { files } = samples();
  const streams = ['flood:posix', ...files.map((f) => `trace:${f}`)];
  const encoders = ['zlib'];
  const rows = [];
  for (const stream of streams) {
    const runs = Object.fromEntries(encoders.map((e) => [e, []]));
    for (let k = 0; k < REPS; k++) for (const e of k & 1 ? [...encoders].reverse() : encoders) runs[e].push(once('replay.mjs', [stream, e], true));
    for (const e of encoders) {
      const r = median(runs[e]);
      const per1k = 1000 / r.events;
      const name = stream.startsWith('trace:') ? basename(stream.slice(6)) : 'POSIX read flood';
      rows.push([name, 'zlib -1', f(r.events), f(r.cpuPerEvent), f(r.mainPerEvent), f(r.cpuPerEvent - r.mainPerEvent), f(r.writerGcs), f(r.writerGcMs, 1), f(r.writerGcMs * 1000 * per1k, 1), `${f(r.mainGcs)} / ${f(r.mainGcMs, 1)} ms`]);
    }
  }
  console.log(`\nThe writer thread on the text path (node ${process.version}, median of ${REPS} processes each; --trace-gc per isolate; CPU from getrusage and the main thread's schedstat)\n`);
  console.log('| stream | encoder | events | process CPU ns/ev | traced thread ns/ev | writer + V8 helpers ns/ev | writer GCs | writer GC ms | writer GC µs per 1k events | traced thread GCs |\n|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}
