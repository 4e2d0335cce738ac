/**
 * Runs a built example (`dist/<name>.js`) as its own node process, traced by the environment
 * (DFTRACER_ENABLE=1, a fresh DFTRACER_LOG_FILE, the process's cwd and TMPDIR a fresh directory),
 * and reads back every trace it wrote, validated by the analyzer.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateFiles } from '@dftracer/analyzer';
import { readTrace, tempDir, traceFiles, type TraceEvent } from '@dftracer/testing';
import { afterAll, expect } from 'vitest';

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

/** Runs `dist/<name>.js` to completion (or `node <nodeArgs> <script>`), failing on a non-zero exit. */
export async function runExample(name: string, opts: { env?: Record<string, string>; nodeArgs?: string[]; args?: string[] } = {}): Promise<Run> {
  const dir = tempDir(`dft-example-${name}-`);
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
  const trace = files.length > 0 ? readTrace(files[0]!) : undefined;
  return { stdout, stderr, dir, files, events: trace?.complete ?? [], metadata: trace?.meta ?? [] };
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
