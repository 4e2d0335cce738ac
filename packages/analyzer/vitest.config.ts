import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // CLI and browser tests spawn processes; the machine may be busy
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
