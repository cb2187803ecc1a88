import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    // Integration tests spawn real gateway and engine processes and mostly wait on them (HTTP,
    // process start), so two files at a time keep two cores busy; vitest's default (cores - 1)
    // would run one.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A temp directory of the run's own, and a teardown that fails the run when a process a
    // test started outlives it (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
  },
});
