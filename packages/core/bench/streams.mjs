// Event streams the encoder bench replays through the tracer: genuine DFTracer traces and
// adversarial mixes. Each stream is a list of events { name, cat, dur, args, gap } (gap: µs since
// the previous event's start) plus the file paths its args refer to; `replay` emits them.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** Genuine traces: beside the clone in CI (`../shared`), or where DFTRACER_SAMPLES points. */
export const SAMPLES_DIR = resolve(process.env.DFTRACER_SAMPLES ?? join(fileURLToPath(new URL('.', import.meta.url)), '../../../../shared/data/upstream-samples'));

/** The replays available here, or the reason there are none. */
export function samples() {
  if (!existsSync(SAMPLES_DIR)) return { files: [], reason: `no upstream samples at ${SAMPLES_DIR} (set DFTRACER_SAMPLES to a folder of .pfw.gz traces)` };
  const files = readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.pfw.gz')).sort();
  return { files, reason: files.length === 0 ? `no .pfw.gz files in ${SAMPLES_DIR}` : '' };
}

/** Keys the tracer writes itself: dropped from a replayed event's args. */
const OWN_KEYS = new Set(['hhash', 'level', 'p_idx']);

/**
 * The complete events of a genuine trace, in file order, with their names, categories,
 * durations, gaps and args; `fhash` args become the path they stood for (the tracer hashes it
 * again, its own way). Its own start and end events are left out.
 */
export function loadTrace(file) {
  const lines = gunzipSync(readFileSync(resolve(SAMPLES_DIR, file))).toString().split('\n');
  const paths = new Map();
  const events = [];
  let last = null;
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line);
    if (e.ph === 'M') {
      // Upstream writes the hash as `value` (2024 layout: an integer); keep the text, as JSON.parse gave it.
      if (e.name === 'FH') paths.set(String(e.args.value), e.args.name);
      continue;
    }
    if (e.ph !== 'X' || e.cat === 'dftracer') continue;
    const args = {};
    for (const [k, v] of Object.entries(e.args ?? {})) {
      if (OWN_KEYS.has(k)) continue;
      args[k] = k === 'fhash' ? { path: paths.get(String(v)) ?? `/unknown/${v}` } : v;
    }
    events.push({ name: e.name, cat: e.cat, dur: e.dur, args, gap: last === null ? 0 : Math.max(0, e.ts - last) });
    last = e.ts;
  }
  return events;
}

/** A seeded generator (mulberry32), so every process replays the same mix. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Adversarial mixes: where a line-aware encoder has the least to copy. */
export const MIXES = {
  /** One kind whose numbers are random: durations, sizes, offsets, a float. */
  'random numbers'(n) {
    const r = rng(1);
    return Array.from({ length: n }, () => ({ name: 'compute', cat: 'app', dur: Math.floor(r() * 1e6), gap: Math.floor(r() * 1e4), args: { size: Math.floor(r() * 2 ** 31), offset: Math.floor(r() * 1e12), ratio: r() } }));
  },
  /** Random fractions in every arg, under a few kinds: digits no earlier line shares. */
  'random fractions'(n) {
    const r = rng(4);
    return Array.from({ length: n }, (_, i) => ({ name: `step_${i & 7}`, cat: 'compute', dur: Math.floor(r() * 1e4), gap: Math.floor(r() * 100), args: { loss: r(), lr: r() / 1e3, grad: r() * 10 - 5, ratio: r() } }));
  },
  /** A thousand kinds, each event with a short string seen nowhere else. */
  'many kinds, unique short strings'(n) {
    const r = rng(2);
    return Array.from({ length: n }, (_, i) => ({ name: `op_${Math.floor(r() * 1000)}`, cat: `cat_${Math.floor(r() * 8)}`, dur: Math.floor(r() * 100), gap: 1 + Math.floor(r() * 50), args: { tag: i.toString(36), n: Math.floor(r() * 1000) } }));
  },
  /** POSIX reads whose numbers change digit count from event to event. */
  'digit-length churn'(n) {
    const r = rng(3);
    const digits = () => Math.floor(10 ** (1 + Math.floor(r() * 11)) * (1 + r()));
    return Array.from({ length: n }, (_, i) => ({ name: 'read', cat: 'POSIX', dur: digits() % 1e5, gap: digits() % 1e4, args: { fhash: { path: `/data/shard-${i & 63}.bin` }, count: digits(), offset: digits(), ret: digits() } }));
  },
};

/**
 * Returns `emit(times)`: the stream's events through tracer `t`, `times` over (each pass after the
 * last, so time goes on), timestamps from `ts0`. Args objects are built once, before timing.
 */
export function replayer(t, events, ts0) {
  const hashes = new Map();
  const prepared = events.map((e) => {
    const args = {};
    for (const [k, v] of Object.entries(e.args)) {
      if (v !== null && typeof v === 'object' && typeof v.path === 'string') {
        if (!hashes.has(v.path)) hashes.set(v.path, t.hashFile(v.path));
        args[k] = hashes.get(v.path);
      } else args[k] = v;
    }
    return { name: e.name, cat: e.cat, dur: e.dur, gap: e.gap, args };
  });
  let ts = ts0;
  return (times) => {
    for (let k = 0; k < times; k++) {
      for (const e of prepared) {
        ts += e.gap;
        t.emit(e.name, e.cat, ts, e.dur, e.args);
      }
      ts += 1000;
    }
  };
}
