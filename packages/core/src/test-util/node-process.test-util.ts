/** Test support: run real node programs against the built core (reading their traces back: @dftracer/testing). Not shipped. */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions, type SpawnSyncReturns } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORE_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
export const REGISTER_DIST = fileURLToPath(new URL('../../dist/register.js', import.meta.url));

/**
 * Writes `source` as an ES module in `dir` and returns its path. `CORE` and `REGISTER` in the
 * source become the (quoted) paths of the built package's index and register entries.
 */
export function writeModule(dir: string, source: string, name = `app-${Math.random().toString(36).slice(2)}.mjs`): string {
  const file = join(dir, name);
  writeFileSync(file, source.replaceAll('CORE', JSON.stringify(CORE_DIST)).replaceAll('REGISTER', JSON.stringify(REGISTER_DIST)));
  return file;
}

/** Writes `source` as an ES module in `dir` and runs it with node; CORE is replaced by the dist path. */
export function runModule(dir: string, source: string, env: Record<string, string | undefined> = {}, nodeArgs: string[] = []): SpawnSyncReturns<string> {
  const file = writeModule(dir, source);
  return spawnSync(process.execPath, [...nodeArgs, file], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...cleanEnv(), ...env },
    timeout: 60_000,
  });
}

export interface Finished {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child whose output can be awaited line by line. */
export interface Running {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the first stdout line that satisfies `pred`; rejects if the child exits first. */
  line(pred: (line: string) => boolean): Promise<string>;
  readonly exited: Promise<Finished>;
}

/** Starts `node <nodeArgs> file` without waiting; for tests that act while the program runs. */
export function start(file: string, env: Record<string, string | undefined> = {}, nodeArgs: string[] = [], options: SpawnOptions = {}): Running {
  const child = spawn(process.execPath, [...nodeArgs, file], { cwd: join(file, '..'), env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let out = '';
  let err = '';
  const waiters: { pred: (l: string) => boolean; resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    out += d;
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i]!.pred(l)) {
          waiters[i]!.resolve(l);
          waiters.splice(i, 1);
        }
      }
    }
  });
  child.stderr!.on('data', (d: string) => (err += d));
  const exited = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${status ?? signal}) before the awaited line; stderr: ${err}`));
      resolve({ status, signal, stdout: out, stderr: err });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    line: (pred) => new Promise((resolve, reject) => waiters.push({ pred, resolve, reject })),
    exited,
  };
}

/** The environment without any DFTRACER_* the test runner may have. */
export function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DFTRACER_') && v !== undefined) out[k] = v;
  return out;
}
