import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The public API: ESM + CJS + type declarations; `@dftracer/analyzer/validate` validates without loading DuckDB.
    entry: { index: 'src/index.ts', validate: 'src/validate/validate-entry.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    shims: true,
    target: 'node20',
    platform: 'node',
  },
  {
    // The `dftracer` bin and the validate worker: ESM only.
    entry: {
      cli: 'src/cli/cli.ts',
      'validate-worker': 'src/validate/validate-worker.ts',
    },
    format: ['esm'],
    sourcemap: true,
    clean: false,
    target: 'node20',
    platform: 'node',
  },
]);
