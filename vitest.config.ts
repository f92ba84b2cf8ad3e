import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The service's JSON log lines are shown only for a test that fails.
    setupFiles: ['test/helpers/quiet-logs.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
