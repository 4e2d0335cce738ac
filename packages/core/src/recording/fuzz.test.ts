import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GENERATOR, type FuzzGenerator } from '../test-util/fuzz-generator.test-util.js';
import { tempDir, traceFiles } from '@dftracer/testing';
import { cleanEnv, writeModule } from '../test-util/node-process.test-util.js';

/**
 * 10,000 events with random names, categories, arg keys and values, and 1,000 metadata records:
 * every line must parse, and every value must come back as written or as its documented
 * replacement:
 *   NaN, Infinity, -Infinity → "NaN", "Infinity", "-Infinity"; -0 → 0; undefined → null;
 *   bigint → a number when it is a safe integer, else its decimal string;
 *   objects → JSON with the same replacements inside, "[Circular]" for a reference to an
 *   ancestor (a shared, non-cyclic reference is written in full), functions → "[Function: name]",
 *   symbols → "Symbol(desc)", toJSON honoured, an object that cannot be serialised → "[unserializable]";
 *   names, categories and arg keys longer than 1024 characters are cut (…[truncated N chars]);
 *   a metadata record longer than 16 KiB has its value (then its name) cut the same way;
 *   user arg keys `hhash`, `level`, `p_idx` (the tracer's own) are written as `user_hhash`…;
 *   an event line longer than 16 KiB has its string args cut, with one warning.
 * Lone surrogates survive: JSON.stringify writes them as \udXXX escapes.
 */



const EVENTS = 10_000;
const METADATA = 1_000;
const SEED = 20251122;
const MAX_LINE = 16 * 1024;

// ---------------------------------------------------------------- the documented replacements

function num(v: number): number | string {
  if (Number.isFinite(v)) return v === 0 ? 0 : v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

function big(v: bigint): number | string {
  return v >= -(2n ** 53n - 1n) && v <= 2n ** 53n - 1n ? Number(v) : v.toString();
}

/** What a value nested in an object becomes (undefined: left out, as JSON does). */
function nested(v: unknown, ancestors: object[]): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return num(v);
    case 'bigint':
      return big(v);
    case 'undefined':
      return undefined;
    case 'function':
      return `[Function: ${v.name || '(anonymous)'}]`;
    case 'symbol':
      return v.toString();
  }
  if (v === null) return null;
  const o = v as Record<string, unknown>;
  if (ancestors.includes(o)) return '[Circular]';
  if (typeof o.toJSON === 'function') return nested((o.toJSON as () => unknown)(), ancestors);
  const inner = [...ancestors, o];
  if (Array.isArray(o)) return o.map((x) => nested(x, inner) ?? null);
  const out: [string, unknown][] = [];
  for (const k of Object.keys(o)) {
    const e = nested(o[k], inner);
    if (e !== undefined) out.push([k, e]);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key, as in JSON.parse.
  return Object.fromEntries(out);
}

/** What an arg value becomes at the top level of args. */
function top(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'object' && v !== null) {
    try {
      return nested(v, []);
    } catch {
      return '[unserializable]';
    }
  }
  return nested(v, []);
}

function cutLabel(s: string): string {
  if (s.length <= 1024) return s;
  let end = 1024;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…[truncated ${s.length - end} chars]`;
}

function argKey(k: string): string {
  return k === 'hhash' || k === 'level' || k === 'p_idx' ? `user_${k}` : cutLabel(k);
}

/** Is `got` the string `full` cut by the tracer (a prefix, then the marker with the right count)? */
function isCutOf(got: unknown, full: string): boolean {
  if (typeof got !== 'string') return false;
  const m = /…\[truncated (\d+) chars\]$/.exec(got);
  if (m === null) return false;
  const kept = got.slice(0, m.index);
  return full.startsWith(kept) && full.length - kept.length === Number(m[1]);
}

describe('fuzzed names, categories, args and metadata', () => {
  it(`${EVENTS} events and ${METADATA} metadata records: every line valid JSON, every value round-trips or is its documented replacement`, async () => {
    const dir = tempDir('dft-fuzz-');
    const gen = writeModule(dir, GENERATOR, 'gen.mjs');
    const r = spawnSync(process.execPath, [writeModule(dir, `
      import { initializeLog, getTracer, logMetadata, finalize } from CORE;
      import { generator } from ${JSON.stringify(gen)};
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'fuzz'))}, dataDir: ${JSON.stringify(join(dir, 'no-io'))} });
      const t = getTracer();
      const g = generator(${SEED});
      for (let i = 0; i < ${EVENTS}; i++) {
        const e = g.event();
        t.emit(e.name, e.cat, t.now(), 1, e.args);
        if (i % 10 === 0) { const m = g.metadata(); logMetadata(m.key, m.value); }
      }
      finalize();
    `)], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1', DFTRACER_WRITE_BUFFER_SIZE: '65536' }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    // One warning for all the oversize events, and nothing else.
    expect(r.stderr).toMatch(/^dftracer: WARN: \d+ event\(s\) longer than 16 KiB had their string args cut\n$/);

    const raw = gunzipSync(readFileSync(traceFiles(dir)[0]!));
    const lines = raw.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.pop()).toBe(']');
    expect(lines[0]).toBe('[');
    const parsed = lines.slice(1).map((l, i) => {
      expect(Buffer.byteLength(l) + 1, `line ${i + 2} is too long`).toBeLessThanOrEqual(MAX_LINE);
      try {
        return JSON.parse(l) as { name: string; cat: string; ph: string; args: Record<string, unknown> };
      } catch (e) {
        throw new Error(`line ${i + 2}: ${(e as Error).message}: ${l.slice(0, 120)}`);
      }
    });
    // No raw control character or unpaired surrogate reaches the file: it is valid UTF-8 JSON text.
    expect(raw.toString('utf8')).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(Buffer.from(raw.toString('utf8'), 'utf8').equals(raw)).toBe(true);

    const { generator } = (await import(pathToFileURL(gen).href)) as { generator: (seed: number) => FuzzGenerator };
    const g = generator(SEED);
    const events = parsed.filter((e) => e.ph === 'X' && e.cat !== 'dftracer');
    const cms = parsed.filter((e) => e.ph === 'M' && e.name === 'CM');
    expect(events).toHaveLength(EVENTS);
    expect(cms).toHaveLength(METADATA);
    let cut = 0;
    for (let i = 0; i < EVENTS; i++) {
      const want = g.event();
      const got = events[i]!;
      expect(got.name, `event ${i} name`).toBe(cutLabel(want.name));
      expect(got.cat, `event ${i} cat`).toBe(cutLabel(want.cat));
      const { hhash: _h, level: _l, p_idx: _p, ...userArgs } = got.args;
      expect(Object.keys(userArgs).sort(), `event ${i} keys`).toEqual(Object.keys(want.args).map(argKey).sort());
      let wasCut = got.args.truncated === true;
      for (const [k, v] of Object.entries(want.args)) {
        const expected = top(v);
        const actual = userArgs[argKey(k)];
        if (typeof actual === 'string' && /…\[truncated \d+ chars\]$/.test(actual) && !(typeof expected === 'string' && actual === expected)) {
          // Cut to fit 16 KiB: a prefix of the string (or of the object's JSON) and the count of what was cut.
          expect(isCutOf(actual, typeof expected === 'string' ? expected : JSON.stringify(expected)), `event ${i} arg ${k}`).toBe(true);
          wasCut = true;
        } else {
          expect(actual, `event ${i} arg ${JSON.stringify(k)}`).toEqual(expected);
        }
      }
      if (wasCut) {
        cut++;
        // Only events that would not fit are cut.
        expect(Buffer.byteLength(JSON.stringify(Object.values(want.args).map(top)))).toBeGreaterThan(MAX_LINE - 3000);
      }
      if (i % 10 === 0) {
        const m = g.metadata();
        const cm = cms[i / 10]!;
        const name = cm.args.name as string;
        expect(name === m.key || isCutOf(name, m.key), `metadata ${i / 10} key`).toBe(true);
        // A string is written as is; anything else as its JSON text (with the replacements).
        const v = cm.args.value as string;
        const full = typeof m.value === 'string' ? m.value : JSON.stringify(top(m.value));
        if (v !== full) expect(isCutOf(v, full), `metadata ${i / 10} value ${v.slice(0, 80)}`).toBe(true);
      }
    }
    expect(cut).toBeGreaterThan(10);
  });
});
