// fs tracing overhead on 4 KiB cached reads: `node bench/fs-read.bench.mjs` (after the build).
//
// Each mode runs in a fresh process (median of REPS): `untraced` (no tracer), `passthrough` (the
// fs plugin installed, the fd outside DFTRACER_DATA_DIR), `traced` (the fd inside: one POSIX
// pread event per call). Target (DESIGN.md §5): traced ≤ +40 % over untraced.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../dist/index.js', import.meta.url);
const REPS = Number(process.env.BENCH_REPS ?? 5);
const N = Number(process.env.BENCH_N ?? 200_000);

async function child(mode, dir) {
  const data = join(dir, 'data');
  const other = join(dir, 'other');
  mkdirSync(data, { recursive: true });
  mkdirSync(other, { recursive: true });
  const file = join(mode === 'passthrough' ? other : data, 'cached.bin');
  writeFileSync(file, Buffer.alloc(1 << 20, 7)); // 1 MiB, read back in 4 KiB pieces: stays in the page cache
  if (mode !== 'untraced') {
    const { initializeLog } = await import(DIST);
    initializeLog({ logFile: join(dir, 'trace'), dataDir: data, enable: true });
  }
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(4096);
  const loop = (n) => {
    for (let i = 0; i < n; i++) readSync(fd, buf, 0, 4096, (i & 255) * 4096);
  };
  loop(20_000); // warm up: JIT, page cache
  const t0 = process.hrtime.bigint();
  loop(N);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  closeSync(fd);
  if (mode !== 'untraced') (await import(DIST)).finalize();
  return ns;
}

function parent() {
  const here = fileURLToPath(import.meta.url);
  const res = {};
  for (const mode of ['untraced', 'passthrough', 'traced']) res[mode] = [];
  for (let r = 0; r < REPS; r++) {
    for (const mode of Object.keys(res)) {
      const dir = mkdtempSync(join(tmpdir(), 'dft-fs-bench-'));
      const p = spawnSync(process.execPath, [here, mode, dir], { encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
      rmSync(dir, { recursive: true, force: true });
      if (p.status !== 0) throw new Error(`${mode} failed:\n${p.stderr}`);
      res[mode].push(Number(p.stdout.trim().split('\n').pop()));
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const u = med(res.untraced);
  const pt = med(res.passthrough);
  const t = med(res.traced);
  console.log(`4 KiB cached readSync (pread), ${N} calls, median of ${REPS} processes, node ${process.version}`);
  console.log(`  untraced              ${u.toFixed(0).padStart(6)} ns/op`);
  console.log(`  plugin, fd not traced ${pt.toFixed(0).padStart(6)} ns/op  (+${((pt / u - 1) * 100).toFixed(1)} %)`);
  console.log(`  traced                ${t.toFixed(0).padStart(6)} ns/op  (+${((t / u - 1) * 100).toFixed(1)} %, ratio ${(t / u).toFixed(3)}; target ≤ 1.40)`);
}

const [mode, dir] = process.argv.slice(2);
if (mode === undefined) parent();
else process.stdout.write(`${await child(mode, dir)}\n`);
