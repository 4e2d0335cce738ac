// Where a traced process's CPU goes, thread by thread: `node bench/thread-cpu.mjs [DIST_DIR]`.
//
// Floods MILLIONS (default 3) millions of POSIX-read-shaped events through the tracer, as the
// core bench's posix case does, and prints per million the wall time and the CPU of the traced
// thread, the writer thread and V8's own threads (compiler, GC), read from
// /proc/self/task/*/schedstat (Linux). The first million includes starting the writer and
// compiling; the later ones are the steady state. DIST_DIR (default: this package's dist) lets
// two builds be compared in alternating processes.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { posixFlood } from './posix-flood.mjs';

const dist = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)));
const MILLIONS = Number(process.env.MILLIONS ?? 3);
const { initializeLog, finalize, getTracer } = await import(pathToFileURL(join(dist, 'index.js')).href);

const before = new Set(readdirSync('/proc/self/task'));
function cpuMs() {
  const out = { main: 0, writer: 0, v8: 0 };
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const ms = Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      out[Number(t) === process.pid ? 'main' : before.has(t) ? 'v8' : 'writer'] += ms;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'dft-thread-cpu-'));
initializeLog({ enable: true, logFile: join(dir, 'bench'), disableIo: true });
const emit = posixFlood(getTracer(), join(dir, 'data'));
let prev = cpuMs();
const rows = [];
for (let m = 0; m < MILLIONS; m++) {
  const w0 = process.hrtime.bigint();
  emit(1_000_000);
  const wall = Number(process.hrtime.bigint() - w0) / 1e6;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); // the writer catches up
  const now = cpuMs();
  rows.push({ million: m + 1, wallMs: Math.round(wall), mainMs: Math.round(now.main - prev.main), writerMs: Math.round(now.writer - prev.writer), v8Ms: Math.round(now.v8 - prev.v8) });
  prev = now;
}
finalize();
rmSync(dir, { recursive: true, force: true });
console.log(`${dist}: ms per million POSIX events (wall of the traced loop; CPU by thread)`);
console.table(rows);
