import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

// Two entries sharing one copy of their modules (the device-time session lives in one):
// splitting for the CommonJS build too, as the ESM build does by default.
export default defineConfig(libraryBuild({ entry: { index: 'src/index.ts', internal: 'src/internal.ts' }, splitting: true }));
