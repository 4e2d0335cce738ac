// One replay per process: `node replay.mjs <stream> <encoder> <outDir>`, where stream is
// `trace:<file>` (a genuine trace, see streams.mjs; an absolute path for any other trace),
// `mix:<name>` or `flood:posix` (FLOOD_EVENTS, default 1 M, POSIX reads as the fs tracer records
// them: the core bench's flood), and encoder a
// DFTRACER_GZIP_ENCODER value. Replays about REPLAY_EVENTS events (default 200 k) through the
// tracer; prints one JSON line: events, bytes per event, total process CPU ns per event, and the
// bytes per event zlib -1 writes for the same members (the file's members recompressed one by one:
// the reference without the noise of another process's pid digits and timing).
import { readFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, inflateRawSync } from 'node:zlib';
import { MIXES, loadTrace, replayer } from './streams.mjs';
import { posixFlood } from './posix-flood.mjs';

const [, , stream, gzipEncoder, outDir] = process.argv;
const TARGET = Number(process.env.REPLAY_EVENTS ?? 200_000);
const LEVEL = Number(process.env.REPLAY_LEVEL ?? 1);
mkdirSync(outDir, { recursive: true });

const { initializeLog, finalize, getTracer } = await import(new URL('../dist/index.js', import.meta.url).href);

const [kind, name] = [stream.slice(0, stream.indexOf(':')), stream.slice(stream.indexOf(':') + 1)];
const FLOOD = Number(process.env.FLOOD_EVENTS ?? 1_000_000);

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

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
emit();
finalize();
const cpu = cpuNs() - cpu0;
const file = readFileSync(join(outDir, readdirSync(outDir).find((f) => f.endsWith('.pfw.gz'))));
console.log(JSON.stringify({ events: n, bytesPerEvent: file.length / n, cpuPerEvent: cpu / n, zlibPerEvent: zlibMembers(file) / n }));

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
