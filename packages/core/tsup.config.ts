import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig(
  libraryBuild({
    // register: `node --import`; writer-entry: the writer thread's script.
    // Named: dist/writer-entry.js must sit beside the chunk that starts the thread (writer-thread.ts).
    entry: { index: 'src/index.ts', register: 'src/register.ts', 'writer-entry': 'src/writer/writer-entry.ts' },
    dts: { entry: { index: 'src/index.ts', register: 'src/register.ts' } },
    define: { __DFTRACER_VERSION__: JSON.stringify(`v${version}`) },
  }),
);
