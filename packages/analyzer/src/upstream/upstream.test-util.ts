/**
 * Small traces in the layouts upstream DFTracer has written, made with this project's own
 * TraceWriter: the committed fixtures in `fixtures/upstream/` are these files (a test regenerates
 * them and compares). Each has known byte totals, so `summary` can be checked exactly.
 *
 * - `2023-string-numbers.pfw`: DLIO profiler / DFTracer 2023 (ChromeWriter): ids and size-like
 *   args as strings, the file named by `args.fname`, no metadata records, no start/end, the first
 *   event indented by what is left of the spaces `[` overwrote.
 * - `2024-integer-hashes.pfw.gz`: DFTracer v1.0.5 LD_PRELOAD: integer hashes (64-bit, beyond
 *   2^53), ids on metadata, num_events counting metadata, a closing `]` without newline.
 * - `2025-e2-no-metadata-ids.pfw`: DFTracer v1.0.15+ (late 2025): 16-hex hashes, metadata
 *   without ids, num_events counting complete events only, no closing `]`.
 * - `fork-duplicate-ids.pfw`: DLIO under DFTracer v1.0.8: fork children write the `fork` event
 *   with their parent's counter (same ids, their own tid).
 * - `unterminated-parents.pfw`: spans still open at finalize: children name parents never written.
 * - `2023-appended-runs.pfw`: the DLIO profiler appending three runs to one file (its name is
 *   the same each time): every number a string, `pid` "0", ids starting again at 0 on the same
 *   thread, each later run's first line still indented.
 * - `2024-appended-runs.pfw.gz`: DFTracer v1.0.5 LD_PRELOAD appending a second run to a finished
 *   file: the first run's `]` (no newline) and the second run's first record share a line.
 * - `2025-concatenated.pfw.gz`: two late-2025 traces joined with `cat` (each starts with `[`).
 * - `seed-v1.0.15-dynamo.pfw`: pydftracer's documented example, verbatim (not generated here).
 */
import { join } from 'node:path';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';

export interface UpstreamFixture {
  file: string;
  /** Expected `summary --json` figures. */
  bytesRead: number;
  bytesWritten: number;
  events: number;
  /** Runs appended in the file (default 1). */
  runs?: number;
  /** Substrings of the warnings `validate` must give. */
  warnings: string[];
}

const T0 = 1_727_387_307_989_925;

/**
 * A writer of 2023 lines (the ChromeWriter of that time printed them one by one): ids from 0 as
 * strings, `pid`/`tid` as given (`"0"` when the program passed rank 0 as the process id).
 */
function chrome2023(w: TraceWriter, pid: string, tid: string, stringTimes = false) {
  let id = 0;
  return (name: string, ts: number, dur: number, args: Record<string, string | number>, indent = '') => {
    const a = Object.entries({ hostname: 'corona171', ...args })
      .map(([k, v]) => `"${k}":${typeof v === 'number' ? v : JSON.stringify(v)}`)
      .join(',');
    const t = (v: number) => (stringTimes ? `"${v}"` : String(v));
    w.raw(`${indent}{"id":"${id++}","name":"${name}","cat":"POSIX","pid":${pid},"tid":${tid},"ts":${t(ts)},"dur":${t(dur)},"ph":"X","args":{${a}}}`);
  };
}

/** The 2023 layout: written line by line, as the ChromeWriter of that time printed them. */
function stringNumbers(dir: string): UpstreamFixture {
  const w = new TraceWriter({ path: join(dir, '2023-string-numbers.pfw'), pid: 51234, metadata: false, closeBracket: 'none' });
  const ev = chrome2023(w, '51234', '51234');
  ev('open64', T0, 12, { fname: '/p/data/img_001.npz', ret: '3' }, ' ');
  ev('read', T0 + 20, 40, { fname: '/p/data/img_001.npz', fd: 3, count: '4096', ret: '4096' });
  ev('read', T0 + 70, 35, { fname: '/p/data/img_001.npz', fd: 3, count: '4096', ret: '1000' });
  ev('close', T0 + 110, 3, { fname: '/p/data/img_001.npz', fd: 3 });
  ev('open64', T0 + 200, 9, { fname: '/p/out/ckpt.pt', ret: '4' });
  ev('write', T0 + 210, 80, { fname: '/p/out/ckpt.pt', fd: 4, count: '65536', ret: '65536' });
  ev('close', T0 + 300, 4, { fname: '/p/out/ckpt.pt', fd: 4 });
  w.close();
  return { file: w.path, bytesRead: 5096, bytesWritten: 65536, events: 7, warnings: ['numbers written as strings', 'lines indented', 'unfinished: no "end" event', 'no "start" event'] };
}

/** The 2024 LD_PRELOAD layout (as the cm1 traces of LLNL/dftracer's examples). */
function integerHashes(dir: string): UpstreamFixture {
  const w = new TraceWriter({ path: join(dir, '2024-integer-hashes.pfw.gz'), pid: 3537784, hostname: 'corona173', hashes: 'int', closeBracket: 'no-newline', memberBytes: 1 << 20 });
  const writes: Cm1Write[] = [
    [5100, 120, 1048576, 1048576],
    [5300, 90, 524288, 524288],
    [5400, 5, 10, -1],
  ];
  cm1Run(w, T0, '/p/lustre/cm1/cm1out_000001.nc', writes, 5500, 6000);
  w.close();
  return { file: w.path, bytesRead: 2712, bytesWritten: 1048576 + 524288, events: 10, warnings: ['hashes written as integers', 'the closing "]" has no final newline'] };
}

/** DFTracer v1.0.15+ (late 2025): no ids on metadata, num_events = complete events, no `]`. */
function e2NoMetadataIds(dir: string): UpstreamFixture {
  const w = new TraceWriter({ path: join(dir, '2025-e2-no-metadata-ids.pfw'), pid: 3200613, hostname: 'tuolumne1004', metaIds: false, closeBracket: 'none' });
  w.header({ cwd: '/usr/WS2/sinurat1/pydftracer', cmd: 'python;train.py', exec: 'DEFAULT-spawn' });
  w.start(T0);
  const f = w.fileHash('/l/ssd/data/train/shard_0003.tfrecord');
  const epoch = w.begin('epoch.iter', 'pipeline', T0 + 10);
  w.complete('pread', 'POSIX', T0 + 20, 300, { args: { fhash: f, count: 262144, offset: 0, ret: 262144 } });
  w.complete('compute', 'compute', T0 + 330, 900);
  w.complete('pread', 'POSIX', T0 + 1240, 280, { args: { fhash: f, count: 262144, offset: 262144, ret: 131072 } });
  w.exit(epoch, T0 + 1600);
  w.end(T0 + 1700, ['ai'], w.completeEvents);
  w.close();
  return { file: w.path, bytesRead: 262144 + 131072, bytesWritten: 0, events: 6, warnings: ['end.num_events counts complete events only'] };
}

/** DLIO's data loader forking its workers: each child logs `fork` with its parent's counter. */
function forkDuplicateIds(dir: string): UpstreamFixture {
  const pid = 1028569;
  const w = new TraceWriter({ path: join(dir, 'fork-duplicate-ids.pfw'), pid, hostname: 'corona171', hashes: 'int' });
  w.header({ cwd: '/p/dlio', cmd: 'python;dlio_benchmark', exec: 'dlio_benchmark' });
  w.start(T0);
  const init = w.begin('TorchFramework.init_loader', 'ai_framework', T0 + 100);
  for (let k = 0; k < 3; k++) {
    const ts = T0 + 200 + k * 1000;
    const child = pid + 1069 + k;
    const fork = w.complete('fork', 'POSIX', ts, 700, { args: { ret: child } });
    // the child returns from fork() with the same counter: same id, its own tid, ret 0
    w.writeComplete({ ...fork, tid: child }, 720, { ret: 0 });
  }
  w.exit(init, T0 + 3500);
  const f = w.fileHash('/p/data/img_047_of_168.hdf5');
  w.complete('pread', 'POSIX', T0 + 4000, 500, { args: { fhash: f, fd: 9, count: 11010048, offset: 2048, ret: 11010048 } });
  w.complete('TorchFramework.compute', 'ai_framework', T0 + 4600, 1361000);
  w.end(T0 + 1_400_000);
  w.close();
  return { file: w.path, bytesRead: 11010048, bytesWritten: 0, events: 11, warnings: ['ids used twice by different threads', 'hashes written as integers'] };
}

/** Spans entered but never exited before finalize: their children name parents never written. */
function unterminatedParents(dir: string): UpstreamFixture {
  const w = new TraceWriter({ path: join(dir, 'unterminated-parents.pfw'), pid: 1028570, hostname: 'corona171' });
  w.header({ cwd: '/p/dlio', cmd: 'python;dlio_benchmark', exec: 'dlio_benchmark' });
  w.start(T0);
  const main = w.begin('DLIOBenchmark.main', 'dlio_benchmark', T0 + 10);
  const train = w.begin('DLIOBenchmark._train', 'dlio_benchmark', T0 + 20);
  const f = w.fileHash('/p/data/img_001.hdf5');
  for (let i = 0; i < 3; i++) {
    const wait = w.begin('loop.iter', 'data_loader', T0 + 100 + i * 1000);
    w.complete('pread', 'POSIX', T0 + 150 + i * 1000, 200, { args: { fhash: f, count: 4096, offset: i * 4096, ret: 4096 } });
    w.exit(wait, T0 + 600 + i * 1000);
    w.complete('TorchFramework.compute', 'ai_framework', T0 + 650 + i * 1000, 300);
  }
  // finalize runs inside _train and main: `end` is their child, and they are never written
  w.end(T0 + 5000);
  void main;
  void train;
  w.close();
  return { file: w.path, bytesRead: 3 * 4096, bytesWritten: 0, events: 11, warnings: ['still open at finalize'] };
}

/**
 * Three runs of a 2023 DLIO profiler program appended to one file: the file's name did not change
 * between runs, and the writer opened it for appending. Only the file's first run has its leading
 * spaces overwritten by `[`; there is no `]`, no metadata and no start/end.
 */
function appended2023(dir: string): UpstreamFixture {
  const path = join(dir, '2023-appended-runs.pfw');
  let read = 0;
  let written = 0;
  let events = 0;
  for (let run = 0; run < 3; run++) {
    const w = new TraceWriter({ path, pid: 0, metadata: false, closeBracket: 'none', ...(run > 0 ? { append: true, prefix: '   ' } : {}) });
    const ev = chrome2023(w, '"0"', '"51234"', true);
    const t = T0 + run * 60_000_000;
    const img = `/p/data/img_00${run + 1}.npz`;
    ev('open64', t, 12, { fname: img, ret: '3' }, run === 0 ? ' ' : '');
    for (let k = 0; k <= run; k++) ev('read', t + 20 + k * 50, 40, { fname: img, fd: 3, count: '4096', ret: String(4096 - k * 1000) });
    ev('close', t + 200, 3, { fname: img, fd: 3 });
    ev('open64', t + 300, 9, { fname: '/p/out/ckpt.pt', ret: '4' });
    ev('write', t + 310, 80, { fname: '/p/out/ckpt.pt', fd: 4, count: '65536', ret: String(65536 >> run) });
    ev('close', t + 400, 4, { fname: '/p/out/ckpt.pt', fd: 4 });
    w.close();
    for (let k = 0; k <= run; k++) read += 4096 - k * 1000;
    written += 65536 >> run;
    events += 5 + run + 1;
  }
  return {
    file: path,
    bytesRead: read,
    bytesWritten: written,
    events,
    runs: 3,
    warnings: ['numbers written as strings', 'lines indented', 'unfinished: no "end" event', 'no "start" event', 'ids start again'],
  };
}

/** A write of a cm1-like run: its start (µs after the run's), duration, count and ret. */
type Cm1Write = readonly [at: number, dur: number, count: number, ret: number];

/** One cm1-like LD_PRELOAD run of the 2024 layout: its MPI config read, then `writes` to `out`, closed at `closeAt`. */
function cm1Run(w: TraceWriter, t0: number, out: string, writes: readonly Cm1Write[], closeAt: number, endAt: number): void {
  w.header({ cwd: '/g/g92/cm1', cmd: './cm1.exe', exec: 'DEFAULT' });
  w.start(t0);
  const conf = w.fileHash('/usr/tce/openmpi/etc/openmpi-mca-params.conf');
  w.complete('fopen', 'STDIO', t0 + 3913, 243, { args: { fhash: conf, mode: 'r' } });
  w.complete('fread', 'STDIO', t0 + 4200, 30, { args: { fhash: conf, size: 1, count: 4096, ret: 2712 } });
  w.complete('fclose', 'STDIO', t0 + 4240, 8, { args: { fhash: conf } });
  const h = w.fileHash(out);
  w.complete('open', 'POSIX', t0 + 5000, 40, { args: { fhash: h, flags: 577, mode: 420, ret: 7 } });
  for (const [at, dur, count, ret] of writes) w.complete('write', 'POSIX', t0 + at, dur, { args: { fhash: h, fd: 7, count, ret } });
  w.complete('close', 'POSIX', t0 + closeAt, 10, { args: { fhash: h, fd: 7 } });
  w.end(t0 + endAt);
}

/** A cm1 run writing `mib` MiB in 1 MiB writes; the bytes it read and wrote. */
function cm1MiBRun(w: TraceWriter, t0: number, mib: number): { read: number; written: number } {
  const writes = Array.from({ length: mib }, (_, k): Cm1Write => [5100 + k * 200, 120, 1048576, 1048576]);
  cm1Run(w, t0, `/p/lustre/cm1/cm1out_00000${mib}.nc`, writes, 5100 + mib * 200, 5000 + mib * 200 + 1000);
  return { read: 2712, written: mib * 1048576 };
}

/**
 * DFTracer v1.0.5 appending a second run to a finished trace (it opens the file with "ab+"): the
 * first run's `]` has no newline, so the second run's first record, after the two spaces a run's
 * first event gets, is on the same line; the file's `[` is the first run's only.
 */
function appended2024(dir: string): UpstreamFixture {
  const path = join(dir, '2024-appended-runs.pfw.gz');
  const opts = { path, hostname: 'corona173', hashes: 'int', closeBracket: 'no-newline', memberBytes: 1 << 20 } as const;
  const w1 = new TraceWriter({ ...opts, pid: 3537784 });
  const a = cm1MiBRun(w1, T0, 1);
  w1.close();
  const w2 = new TraceWriter({ ...opts, pid: 3537790, append: true, prefix: '  ' });
  const b = cm1MiBRun(w2, T0 + 90_000_000, 2);
  w2.close();
  return {
    file: path,
    bytesRead: a.read + b.read,
    bytesWritten: a.written + b.written,
    events: w1.completeEvents + w2.completeEvents,
    runs: 2,
    warnings: ['hashes written as integers', 'the closing "]" has no final newline', 'share a line', 'traces of several runs appended'],
  };
}

/** Two late-2025 traces of one program joined with `cat`: the second starts with its own `[`. */
function concatenated2025(dir: string): UpstreamFixture {
  const path = join(dir, '2025-concatenated.pfw.gz');
  let read = 0;
  let events = 0;
  for (let run = 0; run < 2; run++) {
    const w = new TraceWriter({ path, pid: 3200613 + run, hostname: 'tuolumne1004', metaIds: false, closeBracket: 'none', ...(run > 0 ? { append: true } : {}) });
    w.header({ cwd: '/usr/WS2/sinurat1/pydftracer', cmd: 'python;train.py', exec: 'DEFAULT-spawn' });
    const t = T0 + run * 10_000_000;
    w.start(t);
    const f = w.fileHash(`/l/ssd/data/train/shard_000${run}.tfrecord`);
    const epoch = w.begin('epoch.iter', 'pipeline', t + 10);
    w.complete('pread', 'POSIX', t + 20, 300, { args: { fhash: f, count: 262144, offset: 0, ret: 262144 >> run } });
    w.complete('compute', 'compute', t + 330, 900);
    w.exit(epoch, t + 1600);
    w.end(t + 1700, ['ai'], w.completeEvents);
    w.close();
    read += 262144 >> run;
    events += w.completeEvents;
  }
  return { file: path, bytesRead: read, bytesWritten: 0, events, runs: 2, warnings: ['end.num_events counts complete events only', 'traces of several runs appended'] };
}

/** Writes the generated fixtures into `dir`; the seed's example is committed as it is. */
export function writeUpstreamFixtures(dir: string): UpstreamFixture[] {
  return [stringNumbers(dir), integerHashes(dir), e2NoMetadataIds(dir), forkDuplicateIds(dir), unterminatedParents(dir), appended2023(dir), appended2024(dir), concatenated2025(dir)];
}

/** pydftracer's v1.0.15 example trace (docs/source/dynamo_guide.rst), in the committed fixtures. */
export const SEED_FIXTURE: UpstreamFixture = {
  file: 'seed-v1.0.15-dynamo.pfw',
  bytesRead: 0,
  bytesWritten: 0,
  events: 10,
  warnings: ['lines indented'],
};

/** The code block of a reStructuredText document (the seed), without the block's own indentation. */
export function rstCodeBlock(text: string, marker = '.. code-block:: json'): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() === marker);
  if (at < 0) throw new Error(`no "${marker}" block`);
  const body: string[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '') {
      if (body.length > 0) break;
      continue;
    }
    if (!/^\s/.test(l)) break;
    body.push(l);
  }
  const indent = Math.min(...body.map((l) => l.length - l.trimStart().length));
  return body.map((l) => l.slice(indent)).join('\n') + '\n';
}
