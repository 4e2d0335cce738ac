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
    // import.meta.url in the CommonJS build (tsup leaves `import_meta = {}` without it): resolving
    // tfjs from the package's own folder, the writer thread's script, package.json.
    shims: true,
    ...overrides,
  };
}
