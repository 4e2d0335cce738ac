import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.base.js';

export default defineConfig(libraryBuild({ entry: ['src/demo.ts', 'src/core-basics.ts'], format: ['esm'], dts: false }));
