/**
 * Runs a built example (`dist/<name>.js`) as its own node process, traced by the environment
 * (DFTRACER_ENABLE=1, a fresh DFTRACER_LOG_FILE, the process's cwd and TMPDIR a fresh directory),
 * and reads back every trace it wrote, validated by the analyzer.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { validateFiles } from '@dftracer/analyzer';
import { afterAll, expect } from 'vitest';

export interface TraceEvent {
  id: number;
  name: string;
  cat: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  ph: string;
  args?: Record<string, unknown> & { level?: number; p_idx?: number };
}

export interface Run {
  stdout: string;
  stderr: string;
  dir: string;
  /** Trace files written in the run's directory (its cwd, and where DFTRACER_LOG_FILE points). */
  files: string[];
  /** Complete events of the first (usually only) trace. */
  events: TraceEvent[];
  /** Metadata records of the first trace. */
  metadata: TraceEvent[];
}

const dist = fileURLToPath(new URL('../dist', import.meta.url));

// Each run's directory holds everything it wrote (its TMPDIR points there too); kept only when
// DFTRACER_EXAMPLES_KEEP is set, for looking at a failure.
const made: string[] = [];
afterAll(() => {
  if (!process.env.DFTRACER_EXAMPLES_KEEP) for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function readTrace(file: string): TraceEvent[] {
  const raw = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as TraceEvent);
}

function traceFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.pfw(\.gz)?$/.test(f))
    .map((f) => join(dir, f))
    .sort();
}

/** Runs `dist/<name>.js` to completion (or `node <nodeArgs> <script>`), failing on a non-zero exit. */
export async function runExample(name: string, opts: { env?: Record<string, string>; nodeArgs?: string[]; args?: string[] } = {}): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), `dft-example-${name}-`));
  made.push(dir);
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(dist, `${name}.js`), ...(opts.args ?? [])], {
    cwd: dir,
    env: { ...process.env, TMPDIR: dir, DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(dir, 'trace'), DFTRACER_LOG_LEVEL: 'WARN', ...opts.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const code = await new Promise<number | null>((res) => child.on('close', res));
  if (code !== 0) throw new Error(`${name} exited with ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  const files = traceFiles(dir);
  const all = files.length > 0 ? readTrace(files[0]!) : [];
  return { stdout, stderr, dir, files, events: all.filter((e) => e.ph === 'X'), metadata: all.filter((e) => e.ph === 'M') };
}

/** Asserts that `dftracer validate` finds no problem in each file. */
export async function expectValid(files: string[]): Promise<void> {
  expect(files.length).toBeGreaterThan(0);
  const report = await validateFiles(files, { threads: 0 });
  const problems = report.files.flatMap((f) => f.problems.map((g) => `${f.file}: ${g.kind} ×${g.count}: ${g.examples[0]?.message ?? ''}`));
  expect(problems).toEqual([]);
}

export const ofCat = (events: TraceEvent[], cat: string) => events.filter((e) => e.cat === cat);
export const named = (events: TraceEvent[], name: string) => events.filter((e) => e.name === name);

/** Events whose parent (p_idx) is one of `parents`. */
export function childrenOf(events: TraceEvent[], parents: TraceEvent[]): TraceEvent[] {
  const ids = new Set(parents.map((p) => p.id));
  return events.filter((e) => e.args?.p_idx !== undefined && ids.has(e.args.p_idx));
}

/** Events with some ancestor among `ancestors` (following p_idx up the tree). */
export function descendantsOf(events: TraceEvent[], ancestors: TraceEvent[]): TraceEvent[] {
  const parent = new Map(events.map((e) => [e.id, e.args?.p_idx ?? -1]));
  const roots = new Set(ancestors.map((a) => a.id));
  return events.filter((e) => {
    for (let p = e.args?.p_idx ?? -1, hops = 0; p !== -1 && hops < 64; p = parent.get(p) ?? -1, hops++) if (roots.has(p)) return true;
    return false;
  });
}
