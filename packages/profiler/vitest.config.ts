import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Real tfjs training steps on the cpu backend, on a shared 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
