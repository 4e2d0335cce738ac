// Soak: SOAK_SECONDS (default 60) of mixed traced work — fs I/O on traced paths (sync, promise,
// fd), sync and async traced compute, and a worker thread tracing into the same file — with the
// buffers flushing all along. Then the trace is read back and every event the program made is
// accounted for. Prints a table; exits 1 if any event was lost.
//
//   node packages/core/bench/soak.mjs            (build first: pnpm --filter @dftracer/core build)
//   SOAK_SECONDS=10 node packages/core/bench/soak.mjs
import { closeSync, createReadStream, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';

const core = await import(new URL('../dist/index.js', import.meta.url).href);
const { initializeLog, finalize, dftFn } = core;

const MiB = 2 ** 20;

/** A little real compute, so the traced call is not empty. */
function mix(step) {
  let h = step | 0;
  for (let k = 0; k < 64; k++) h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) + k;
  return h >>> 0;
}

if (!isMainThread) {
  // The worker: traced compute until the main thread raises the stop flag.
  initializeLog();
  const stop = new Int32Array(workerData.stop);
  const work = dftFn('soak').log(function soakWorker(step) { return mix(step); });
  let n = 0;
  let sink = 0;
  while (Atomics.load(stop, 0) === 0) {
    for (let i = 0; i < 1000; i++) sink ^= work(n++);
    Atomics.wait(stop, 0, 0, 1); // a little idle time, like a real worker between tasks
  }
  parentPort.postMessage({ calls: n, sink });
} else {
  await main();
}

async function main() {
  const seconds = Number(process.env.SOAK_SECONDS ?? 60);
  const dir = mkdtempSync(join(tmpdir(), 'dft-soak-'));
  const data = join(dir, 'data');
  mkdirSync(data);
  const rss0 = process.memoryUsage.rss();
  initializeLog({ enable: true, logFile: join(dir, 'soak'), dataDir: data, compression: true });

  const counts = { compute: 0, io: 0, async: 0 };
  const compute = dftFn('soak').log(function soakCompute(step) { counts.compute++; return mix(step); });
  const ioStep = dftFn('soak').log(function soakIo(step) {
    counts.io++;
    const f = join(data, `f${step % 16}.bin`);
    writeFileSync(f, Buffer.alloc(4096, step & 0xff));
    const fd = openSync(f, 'r');
    readSync(fd, Buffer.alloc(4096), 0, 4096, 0);
    closeSync(fd);
    return readFileSync(f).length + statSync(f).size;
  });
  const asyncStep = dftFn('soak').log(async function soakAsync(step) {
    counts.async++;
    const f = join(data, `a${step % 4}.bin`);
    await writeFile(f, Buffer.alloc(1024, 1));
    return (await readFile(f)).length;
  });

  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL(import.meta.url), { workerData: { stop: stop.buffer } });
  const workerDone = new Promise((res, rej) => {
    let report;
    worker.on('message', (m) => (report = m));
    worker.on('error', rej);
    worker.on('exit', () => res(report));
  });

  let rssMin = Infinity;
  let rssMax = 0;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let step = 0;
  let sink = 0;
  let nextSample = 0;
  while (performance.now() < deadline) {
    // One round: a burst of compute, some synchronous I/O, a few concurrent async operations.
    for (let i = 0; i < 2000; i++) sink ^= compute(step++);
    for (let i = 0; i < 8; i++) sink ^= ioStep(step++);
    const pending = [];
    for (let i = 0; i < 4; i++) pending.push(asyncStep(step++));
    for (const v of await Promise.all(pending)) sink ^= v;
    const now = performance.now();
    if (now >= nextSample) {
      const m = process.memoryUsage.rss();
      if (now - t0 > 2000) {
        rssMin = Math.min(rssMin, m);
        rssMax = Math.max(rssMax, m);
      }
      nextSample = now + 100;
    }
  }
  Atomics.store(stop, 0, 1);
  const workerReport = await workerDone;
  const elapsed = (performance.now() - t0) / 1000;
  finalize();

  // Read the trace back and account for every event.
  const file = readdirSync(dir).filter((f) => f.endsWith('.pfw.gz')).map((f) => join(dir, f))[0];
  const size = statSync(file).size;
  const found = { soakCompute: 0, soakIo: 0, soakAsync: 0, soakWorker: 0 };
  let complete = 0;
  let posix = 0;
  let bad = 0;
  let last = '';
  let tail = '';
  const validate = process.env.SOAK_VALIDATE === '1';
  for await (const chunk of createReadStream(file).pipe(createGunzip())) {
    const s = tail + chunk.toString('utf8');
    let start = 0;
    for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', start)) {
      const line = s.slice(start, nl);
      start = nl + 1;
      if (line === '[' || line === ']') continue; // the array's brackets, first and last lines
      if (line[0] !== '{' || line[line.length - 1] !== '}') bad++;
      else if (validate) {
        try {
          JSON.parse(line);
        } catch {
          bad++;
        }
      }
      if (!line.startsWith('{"id":')) continue;
      complete++;
      last = line;
      const m = /"name":"(soak[A-Za-z]+)"/.exec(line.slice(0, 80));
      if (m !== null) found[m[1]]++;
      else if (line.includes('"cat":"POSIX"')) posix++;
    }
    tail = s.slice(start);
  }
  if (tail !== '') bad++;
  const end = JSON.parse(last);
  const expected = { soakCompute: counts.compute, soakIo: counts.io, soakAsync: counts.async, soakWorker: workerReport.calls };
  let lost = 0;
  for (const k of Object.keys(expected)) lost += Math.abs(expected[k] - found[k]);
  // end.num_events counts every event written before it: it must match what is in the file.
  if (end.name !== 'end' || end.args.num_events !== complete - 1) lost += Math.abs((end.args?.num_events ?? 0) - (complete - 1)) || 1;
  rmSync(dir, { recursive: true, force: true });

  const f = (x, d = 0) => x.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d });
  const rows = [
    ['duration', `${f(elapsed, 1)} s`],
    ['events written (all kinds)', f(complete)],
    ['events/s', f(complete / elapsed)],
    ['traced compute calls (main / worker)', `${f(found.soakCompute)} / ${f(found.soakWorker)}`],
    ['traced I/O steps (sync / async) and their POSIX events', `${f(found.soakIo)} / ${f(found.soakAsync)}, ${f(posix)} POSIX`],
    ['lost events (must be 0)', f(lost)],
    ['malformed lines (must be 0)', f(bad)],
    ['RSS before init', `${f(rss0 / MiB, 1)} MiB`],
    ['RSS min / max (after 2 s)', `${f(rssMin / MiB, 1)} / ${f(rssMax / MiB, 1)} MiB`],
    ['trace size', `${f(size / MiB, 1)} MiB, ${f(size / complete, 2)} B/event`],
  ];
  console.log(`\n@dftracer/core soak (node ${process.version}, ${seconds} s, sink ${sink & 1})\n`);
  console.log('| measure | value |\n|---|---|');
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  if (lost !== 0 || bad !== 0) {
    console.error(`soak: ${lost} event(s) lost, ${bad} malformed line(s)`);
    process.exitCode = 1;
  }
}
