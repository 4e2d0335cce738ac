import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples' lib uses TC39 decorators (ai.data.item, ai.compute.*): lower them for node 20.
  esbuild: { target: 'node20' },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each example is a real node process training a real model: one file at a time on 2 cores.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
