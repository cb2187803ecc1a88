import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    // Integration tests spawn real gateway processes; two cores means little parallelism helps.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
