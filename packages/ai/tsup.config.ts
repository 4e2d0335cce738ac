import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

// shims: import.meta.url in the CommonJS build (loadTf resolves packages from here).
export default defineConfig(libraryBuild({ shims: true }));
