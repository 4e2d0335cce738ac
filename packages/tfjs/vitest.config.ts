import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Tests spawn real node processes that trace real files; give them room on a 2-core machine.
    testTimeout: 60_000,
    pool: 'forks',
  },
});
