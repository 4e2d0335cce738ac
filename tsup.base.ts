import type { Options } from 'tsup';

/** The build every package shares: ESM + CJS + .d.ts for Node 20, names kept for traced functions. */
export function libraryBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    // Traced functions are named after themselves: keep the names the bundler would rename.
    keepNames: true,
    ...overrides,
  };
}
