// fs tracing overhead on 4 KiB cached reads: `node bench/fs-read.bench.mjs` (after the build).
//
// Three ways of calling readSync(fd, buf, 0, 4096, pos) on a 1 MiB file that stays in the page
// cache: `untraced` (the original function, no tracer), `pass-through` (the fs plugin installed,
// the fd outside DFTRACER_DATA_DIR) and `traced` (the fd inside: one POSIX `pread` event per call).
//
// 1. Fresh processes, one per mode (median of REPS): what a program sees, tracer threads included.
// 2. One process, the three interleaved in rounds (the original captured before the plugin
//    installed itself): less exposed to a busy machine. Median and best round.
// 3. As 2 with the plugin on a tracer that records nothing: the plugin's own share.
//
// Target: traced ≤ +40 % over untraced.
import { spawnSync } from 'node:child_process';
import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../dist/index.js', import.meta.url);
const REPS = Number(process.env.BENCH_REPS ?? 5);
const N = Number(process.env.BENCH_N ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

function files(dir) {
  const data = join(dir, 'data');
  const other = join(dir, 'other');
  mkdirSync(data, { recursive: true });
  mkdirSync(other, { recursive: true });
  const traced = join(data, 'cached.bin');
  const untraced = join(other, 'cached.bin');
  writeFileSync(traced, Buffer.alloc(1 << 20, 7));
  writeFileSync(untraced, Buffer.alloc(1 << 20, 7));
  return { data, traced, untraced };
}

const buf = Buffer.alloc(4096);

/** ns per call of `read(fd, i)` over n calls. */
function time(read, fd, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) read(fd, buf, 0, 4096, (i & 255) * 4096);
  return Number(process.hrtime.bigint() - t0) / n;
}

async function separate(mode, dir) {
  const f = files(dir);
  if (mode !== 'untraced') (await import(DIST)).initializeLog({ logFile: join(dir, 'trace'), dataDir: f.data, enable: true });
  const fd = fs.openSync(mode === 'traced' ? f.traced : f.untraced, 'r');
  time(fs.readSync, fd, 20_000); // warm up: JIT, page cache
  const ns = time(fs.readSync, fd, N);
  fs.closeSync(fd);
  if (mode !== 'untraced') (await import(DIST)).finalize();
  return ns;
}

/** A tracer that keeps nothing (same clock as the real one): what the plugin itself costs. */
function nullTracer(data) {
  let sink = 0;
  return {
    config: {},
    now: () => Math.floor((performance.timeOrigin + performance.now()) * 1000),
    enter: (o) => ({ id: 0, level: 1, parentId: -1, start: o?.start ?? 0, async: true }),
    exit() {},
    within: (_s, fn) => fn(),
    emit(_n, _c, _ts, dur) {
      sink += dur;
    },
    hashFile: () => '0123456789abcdef',
    hashString: () => '0123456789abcdef',
    metadata() {},
    isTraced: (p) => p.startsWith(data),
    log() {},
  };
}

async function interleaved(dir, pluginOnly) {
  const f = files(dir);
  const original = fs.readSync;
  const fdU = fs.openSync(f.untraced, 'r');
  const core = await import(DIST);
  if (pluginOnly) core.fsPlugin().setup(nullTracer(f.data));
  else core.initializeLog({ logFile: join(dir, 'trace'), dataDir: f.data, enable: true });
  const fdT = fs.openSync(f.traced, 'r');
  const wrapped = fs.readSync;
  const modes = { untraced: [original, fdU], 'pass-through': [wrapped, fdU], traced: [wrapped, fdT] };
  const res = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
  const n = Math.max(1000, Math.floor(N / 4));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, [read, fd]] of Object.entries(modes)) {
      time(read, fd, 2000);
      res[k].push(time(read, fd, n));
    }
  }
  if (!pluginOnly) core.finalize();
  return res;
}

const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const pct = (x, base) => `${x >= base ? '+' : ''}${((x / base - 1) * 100).toFixed(1)} %`;

function row(label, u, x) {
  return `  ${label.padEnd(14)} ${x.toFixed(0).padStart(6)} ns/op  ${x === u ? '' : `(${pct(x, u)}, ratio ${(x / u).toFixed(3)})`}`;
}

function parent() {
  const here = fileURLToPath(import.meta.url);
  const run = (args) => {
    const dir = mkdtempSync(join(tmpdir(), 'dft-fs-bench-'));
    const p = spawnSync(process.execPath, [here, ...args, dir], { encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
    rmSync(dir, { recursive: true, force: true });
    if (p.status !== 0) throw new Error(`${args.join(' ')} failed:\n${p.stderr}`);
    return JSON.parse(p.stdout.trim().split('\n').pop());
  };
  const sep = { untraced: [], 'pass-through': [], traced: [] };
  for (let r = 0; r < REPS; r++) for (const mode of Object.keys(sep)) sep[mode].push(run(['separate', mode]));
  const inter = run(['interleaved']);
  const alone = run(['plugin-only']);

  console.log(`4 KiB cached readSync (pread), node ${process.version}; target: traced ≤ +40 %`);
  console.log(`\n1. one process per mode, ${N} calls, median of ${REPS} processes`);
  const u = med(sep.untraced);
  for (const m of Object.keys(sep)) console.log(row(m, u, med(sep[m])));
  console.log(`\n2. one process, modes interleaved, ${ROUNDS} rounds of ${Math.max(1000, Math.floor(N / 4))} calls: median round (best round)`);
  const ui = med(inter.untraced);
  const ub = Math.min(...inter.untraced);
  for (const m of Object.keys(inter)) console.log(`${row(m, ui, med(inter[m]))}   best ${Math.min(...inter[m]).toFixed(0)} ns${m === 'untraced' ? '' : ` (${pct(Math.min(...inter[m]), ub)})`}`);
  console.log(`\n3. as 2, the plugin alone: a tracer that keeps nothing (same clock, two reads per event)`);
  const ua = med(alone.untraced);
  const uab = Math.min(...alone.untraced);
  for (const m of Object.keys(alone)) console.log(`${row(m, ua, med(alone[m]))}   best ${Math.min(...alone[m]).toFixed(0)} ns${m === 'untraced' ? '' : ` (${pct(Math.min(...alone[m]), uab)})`}`);
}

const [what, a, b] = process.argv.slice(2);
if (what === undefined) parent();
else if (what === 'separate') process.stdout.write(`${JSON.stringify(await separate(a, b))}\n`);
else process.stdout.write(`${JSON.stringify(await interleaved(a, what === 'plugin-only'))}\n`);
