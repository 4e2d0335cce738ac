import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig(
  libraryBuild({
    // register: `node --import`; writer-entry: the writer thread's script.
    entry: ['src/index.ts', 'src/register.ts', 'src/writer-entry.ts'],
    dts: { entry: ['src/index.ts', 'src/register.ts'] },
    shims: true,
    define: { __DFTRACER_VERSION__: JSON.stringify(`v${version}`) },
  }),
);
