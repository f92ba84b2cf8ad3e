import { defineConfig } from 'vitest/config';

/**
 * The engine's tests as Stryker runs them (`npm run test:mutation`): everything under
 * test/engine and test/text (the text helpers the engine's messages use) but the million-node file (it dominates run time without pinning more behaviour)
 * and the purity test (it reads the source text rather than running it).
 */
export default defineConfig({
  test: {
    include: ['test/engine/**/*.test.ts', 'test/text/**/*.test.ts'],
    exclude: ['test/engine/large.test.ts', 'test/engine/purity.test.ts'],
    reporters: ['default', './vitest.mutation-reporter.ts'],
    testTimeout: 60_000,
  },
});
