// The writer's encoder alone (src/gzip/event-gzip.ts: a flush's gzip member from the event columns):
// `node bench/event-gzip.bench.mjs [OTHER_PACKAGE_ROOT…]` (no build needed).
//
// Each root's src/ is compiled with the esbuild that tsup brings (the encoder is not a public entry
// point); with other roots given (a `git worktree` of an older commit's packages/core, say), their
// encoders run in this same process, alternating with this one round by round, so both meet the
// same moments of a noisy machine: A/B figures come from the per-round ratios, not from separate
// processes. Two data sets of BENCH_LINES events (default 256 k) in batches of 16,384 (the
// tracer's flush size): `posix` — 4 KiB reads over 64 files, µs timestamps; `fn` — three dftFn
// functions, nested. Every encoder's output must gunzip to the same text (checked first).
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const LINES = Number(process.env.BENCH_LINES ?? 262_144);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WARM_ROUNDS = 4;
const CAP = 16_384;

const here = fileURLToPath(new URL('..', import.meta.url));
const roots = [here, ...process.argv.slice(2).map((p) => resolve(p))];
const esbuild = createRequire(createRequire(join(here, 'package.json')).resolve('tsup'))('esbuild');

async function load(root) {
  const dir = mkdtempSync(join(tmpdir(), 'event-gzip-bench-'));
  try {
    await esbuild.build({
      entryPoints: { 'event-gzip': join(root, 'src/gzip/event-gzip.ts'), 'event-buffer': join(root, 'src/recording/event-buffer.ts'), interner: join(root, 'src/recording/interner.ts'), 'format-events': join(root, 'src/format/format-events.ts'), fixtures: join(root, 'src/test-util/fixtures.test-util.ts') },
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      logLevel: 'warning',
    });
    const mod = async (name) => import(join(dir, `${name}.mjs`));
    return { root, ...(await mod('event-gzip')), ...(await mod('event-buffer')), ...(await mod('interner')), ...(await mod('format-events')), ...(await mod('fixtures')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mods = [];
for (const root of roots) mods.push(await load(root));
// Batches are built once, with this root's buffer and interner; every encoder reads the same ones.
const { EventBuffer, Interner, formatEvents, posixReads, fnCalls, HH } = mods[0];

function dataset(name) {
  const it = new Interner(4242);
  const ctx = { kindFrag: it.kindFrag, keyFrag: it.keyFrag, strFrag: it.strFrag, incMetadata: true, argsHead: `,"ph":"X","args":{"hhash":"${HH}","level":`, onTruncated() {} };
  const batches = [];
  let b = null;
  const next = () => {
    if (b === null || b.full) batches.push((b = new EventBuffer(CAP)));
    return b;
  };
  if (name === 'posix') {
    const kind = it.kind('read', 'POSIX');
    const keys = new Int32Array(['fhash', 'count', 'offset', 'ret'].map((k) => it.key(k)));
    for (const e of posixReads(LINES)) {
      const buf = next();
      buf.times(e.ts, e.dur);
      buf.pushValues(kind, e.id, 4242, 1, -1, keys, 0, 4, e.fhash, 4096, e.offset, 4096, it);
    }
  } else {
    for (const e of fnCalls(LINES)) {
      const buf = next();
      buf.times(e.ts, e.dur);
      buf.pushArgs(it.kind(e.name, 'app'), e.id, 4242, e.level, e.pidx, undefined, it);
    }
  }
  return { ctx, batches };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

for (const name of ['posix', 'fn']) {
  const { ctx, batches } = dataset(name);
  const encoders = mods.map((m) => new m.EventGzip(ctx, 1));
  // Correctness first: every encoder's members read back as the text formatEvents writes.
  for (const b of batches.slice(0, 2)) {
    const text = formatEvents(b, ctx);
    for (const [k, e] of encoders.entries()) if (gunzipSync(e.encode('', b)).toString() !== text) throw new Error(`${roots[k]}: output differs from formatEvents`);
  }
  const ns = mods.map(() => []);
  const bytes = mods.map(() => 0);
  for (let round = 0; round < WARM_ROUNDS + ROUNDS; round++) {
    const order = mods.map((_, k) => k);
    if (round & 1) order.reverse();
    for (const k of order) {
      let size = 0;
      const t0 = process.hrtime.bigint();
      for (const b of batches) size += encoders[k].encode('', b).length;
      const t = Number(process.hrtime.bigint() - t0) / LINES;
      if (round >= WARM_ROUNDS) ns[k].push(t);
      bytes[k] = size / LINES;
    }
  }
  console.log(`${name}: ${LINES} events, ${batches.length} batches, median of ${ROUNDS} rounds`);
  for (const [k, m] of mods.entries()) {
    const ratio = k === 0 ? '' : `, ${median(ns[k].map((x, j) => x / ns[0][j])).toFixed(3)}× this one (median of per-round ratios)`;
    console.log(`  ${k === 0 ? 'this checkout' : m.root}: ${median(ns[k]).toFixed(0)} ns/event, ${bytes[k].toFixed(2)} B/event${ratio}`);
  }
}
