import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

// ESM only: every test that imports it is an ES module.
export default defineConfig(libraryBuild({ format: ['esm'] }));
