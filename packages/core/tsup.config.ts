import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  entry: ['src/index.ts', 'src/register.ts', 'src/writer-entry.ts'],
  shims: true,
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  // Traced functions are named after themselves: keep the names the bundler would rename.
  keepNames: true,
  define: { __DFTRACER_VERSION__: JSON.stringify(`v${version}`) },
});
