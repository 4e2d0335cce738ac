// One replay per process: `node replay.mjs <stream> <encoder> <outDir>`, where stream is
// `trace:<file>` (a genuine trace, see streams.mjs; an absolute path for any other trace),
// `mix:<name>` or `flood:posix` (FLOOD_EVENTS, default 1 M, POSIX reads as the fs tracer records
// them: the core bench's flood), and encoder a
// DFTRACER_GZIP_ENCODER value. Replays about REPLAY_EVENTS events (default 200 k) through the
// tracer; prints one JSON line: events, bytes per event, total process CPU ns per event, the main
// thread's CPU ns per event (Linux; the rest is the writer thread and V8's helpers), and the
// bytes per event zlib -1 writes for the same members (the file's members recompressed one by one:
// the reference without the noise of another process's pid digits and timing). BENCH_DIST: another
// build's dist folder, to compare two builds in alternating processes.
import { readFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync, inflateRawSync } from 'node:zlib';
import { MIXES, loadTrace, replayer } from './streams.mjs';
import { posixFlood } from './posix-flood.mjs';

const [, , stream, gzipEncoder, outDir] = process.argv;
const TARGET = Number(process.env.REPLAY_EVENTS ?? 200_000);
const LEVEL = Number(process.env.REPLAY_LEVEL ?? 1);
mkdirSync(outDir, { recursive: true });

const dist = process.env.BENCH_DIST ? pathToFileURL(join(resolve(process.env.BENCH_DIST), 'index.js')).href : new URL('../dist/index.js', import.meta.url).href;
const { initializeLog, finalize, getTracer } = await import(dist);

const [kind, name] = [stream.slice(0, stream.indexOf(':')), stream.slice(stream.indexOf(':') + 1)];
const FLOOD = Number(process.env.FLOOD_EVENTS ?? 1_000_000);

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

/** The main thread's CPU ns so far (schedstat; 0 where there is none): it outlives the writer thread, unlike the writer's own. */
const mainNs = () => {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
};

// Under --expose-gc (run.mjs's writer table) the main isolate collects first, so --trace-gc's
// first isolate is the program's and the writer's can be told apart.
globalThis.gc?.();
initializeLog({ enable: true, logFile: join(outDir, 'replay'), disableIo: true, gzipEncoder, compressionLevel: LEVEL });
const t = getTracer();
let n;
let emit;
if (kind === 'flood') {
  const flood = posixFlood(t, join(outDir, 'data'));
  n = FLOOD;
  emit = () => flood(FLOOD);
} else {
  const events = kind === 'trace' ? loadTrace(name) : MIXES[name](TARGET);
  const times = Math.max(1, Math.round(TARGET / events.length));
  const replay = replayer(t, events, t.now());
  n = events.length * times;
  emit = () => replay(times);
}
const cpu0 = cpuNs();
const main0 = mainNs();
emit();
finalize();
const cpu = cpuNs() - cpu0;
const main = mainNs() - main0;
const file = readFileSync(join(outDir, readdirSync(outDir).find((f) => f.endsWith('.pfw.gz'))));
console.log(JSON.stringify({ events: n, bytesPerEvent: file.length / n, cpuPerEvent: cpu / n, mainPerEvent: main / n, zlibPerEvent: zlibMembers(file) / n }));

/** What zlib -1 writes for the file's members, one by one (our members carry no optional gzip header fields). */
function zlibMembers(buf) {
  let total = 0;
  for (let off = 0; off < buf.length; ) {
    const { buffer, engine } = inflateRawSync(buf.subarray(off + 10), { info: true });
    total += gzipSync(buffer, { level: 1 }).length;
    off += 10 + engine.bytesWritten + 8;
  }
  return total;
}
