import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `dftracer` bin, as users run it. */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

/** Runs the bin in a fresh node (in `cwd`, with no progress bar): its exit code, stdout and stderr. */
export function runCli(args: readonly string[], cwd?: string): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', ...(cwd ? { cwd } : {}), env: { ...process.env, NO_PROGRESS: '1' } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
