// Compression cost and size on trace text: `node bench/line-gzip.bench.mjs` (no build needed).
//
// zlib level 1, zlib level 6 and gzipLines (src/gzip/line-gzip.ts, compiled here with the esbuild that
// tsup brings, since the encoder is not part of the public entry points) on batches of ~1 MiB of
// text, as the writer thread compresses them. Two data sets of BENCH_LINES lines (default 1 M):
// - posix: `read` events, 64 files read one after another in 4 KiB steps, µs timestamps;
// - fn: dftFn-style events of three functions.
// Each run compresses every batch once per encoder, encoders interleaved per batch; ns/event is
// the median over BENCH_RUNS runs (default 5), bytes/event the compressed total / events.
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BATCH = 1 << 20;

const root = fileURLToPath(new URL("..", import.meta.url));
const esbuild = createRequire(
  createRequire(join(root, "package.json")).resolve("tsup")
)("esbuild");
const dir = mkdtempSync(join(tmpdir(), "line-gzip-bench-"));
await esbuild.build({
  entryPoints: [join(root, "src/gzip/line-gzip.ts"), join(root, "src/line-gzip.test-util.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir: dir,
  outExtension: { ".js": ".mjs" },
  logLevel: "warning",
});
const { gzipLines } = await import(join(dir, "line-gzip.mjs"));
const { HH, posixReads, fnCalls } = await import(join(dir, "line-gzip.test-util.mjs"));
rmSync(dir, { recursive: true, force: true });

function* posix() {
  for (const e of posixReads(LINES))
    yield `{"id":${e.id},"name":"read","cat":"POSIX","pid":4242,"tid":4242,"ts":${e.ts},"dur":${e.dur},"ph":"X","args":{"hhash":"${HH}","level":1,"p_idx":-1,"fhash":"${e.fhash}","count":4096,"offset":${e.offset},"ret":4096}}\n`;
}
function* fn() {
  for (const e of fnCalls(LINES))
    yield `{"id":${e.id},"name":"${e.name}","cat":"app","pid":4242,"tid":4242,"ts":${e.ts},"dur":${e.dur},"ph":"X","args":{"hhash":"${HH}","level":${e.level},"p_idx":${e.pidx}}}\n`;
}

/** Batches of about 1 MiB of text, and their event counts. */
function batches(gen) {
  const list = [];
  let text = "";
  let events = 0;
  for (const line of gen) {
    text += line;
    events++;
    if (text.length >= BATCH) {
      list.push({ text, events });
      text = "";
      events = 0;
    }
  }
  if (events > 0) list.push({ text, events });
  return list;
}

const encoders = {
  "zlib level 1": (t) => gzipSync(t, { level: 1 }),
  "zlib level 6": (t) => gzipSync(t, { level: 6 }),
  gzipLines: (t) => gzipLines(t),
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

for (const [name, gen] of [
  ["posix", posix],
  ["fn", fn],
]) {
  const list = batches(gen());
  const events = list.reduce((a, b) => a + b.events, 0);
  // Correctness first, and a warm-up for the JIT.
  for (const b of list.slice(0, 3))
    if (gunzipSync(gzipLines(b.text)).toString() !== b.text)
      throw new Error("gzipLines round trip failed");
  const ns = Object.fromEntries(Object.keys(encoders).map((k) => [k, []]));
  const bytes = {};
  for (let run = 0; run < RUNS; run++) {
    const total = Object.fromEntries(Object.keys(encoders).map((k) => [k, 0n]));
    const size = Object.fromEntries(Object.keys(encoders).map((k) => [k, 0]));
    for (const b of list) {
      for (const [k, enc] of Object.entries(encoders)) {
        const t0 = process.hrtime.bigint();
        const gz = enc(b.text);
        total[k] += process.hrtime.bigint() - t0;
        size[k] += gz.length;
      }
    }
    for (const k of Object.keys(encoders)) {
      ns[k].push(Number(total[k]) / events);
      bytes[k] = size[k] / events;
    }
  }
  console.log(
    `${name}: ${events} events, ${(
      list.reduce((a, b) => a + b.text.length, 0) / events
    ).toFixed(0)} bytes/line, ${list.length} batches`
  );
  for (const k of Object.keys(encoders)) {
    console.log(
      `  ${k.padEnd(13)} ${median(ns[k])
        .toFixed(0)
        .padStart(6)} ns/event (runs ${ns[k]
        .map((x) => x.toFixed(0))
        .join(" ")})  ${bytes[k].toFixed(2)} bytes/event`
    );
  }
}
