// The cache of generated traces the analyzer's benches share, and the generator that writes them.
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Where generated traces are kept between runs. */
export const CACHE = join(tmpdir(), 'dftracer-analyzer-bench-v1');

/**
 * `writeSyntheticTrace` from src/test-util/synthetic.test-util.ts: test support, not shipped in dist/, so
 * bundled from its source for this run.
 */
export async function syntheticWriter() {
  mkdirSync(CACHE, { recursive: true });
  // this process's own bundle: benches of other checkouts may share the cache at the same time
  const gen = join(CACHE, `generator-${process.pid}`);
  const { build } = await import('tsup');
  await build({ entry: { synthetic: join(here, '..', 'src', 'test-util', 'synthetic.test-util.ts') }, outDir: gen, format: ['esm'], outExtension: () => ({ js: '.mjs' }), platform: 'node', target: 'node20', silent: true, config: false });
  try {
    return (await import(pathToFileURL(join(gen, 'synthetic.mjs')).href)).writeSyntheticTrace;
  } finally {
    rmSync(gen, { recursive: true, force: true });
  }
}
