import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

// Every program in src/ (not lib/, not tests) is an entry: `node dist/<name>.js` runs it.
export default defineConfig(libraryBuild({ entry: ['src/*.ts', '!src/*.test.ts'], format: ['esm'], dts: false }));
