import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The service's JSON log lines are shown only for a test that fails.
    setupFiles: ['test/helpers/quiet-logs.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core machine, where most
    // test files wait on a child process, a browser or DynamoDB rather than on the CPU, so two
    // workers finish the suite in about 60% of the time (docs/benchmark.md, "npm test").
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
