import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

// shims: import.meta.url in the CommonJS build (resolving tfjs-core and the package's own folder).
export default defineConfig(libraryBuild({ shims: true }));
