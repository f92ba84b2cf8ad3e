import { defineConfig } from 'vitest/config';

/**
 * The tests of the code that guards access and data, as Stryker runs them
 * (`npm run test:mutation:access`): the outbound fetch guard, the token verifiers, the API key
 * store and verifier, the system store, each in the folder that mirrors it; and the tests that
 * exercise the stores' fault, quota, refresh and sweep paths through their callers (the use
 * cases, DynamoDB faults behind a proxy, the quota counter, the sweep).
 */
export default defineConfig({
  test: {
    include: [
      'test/outbound/**/*.test.ts',
      'test/tokens/**/*.test.ts',
      'test/keys/**/*.test.ts',
      'test/systems/**/*.test.ts',
      'test/app/**/*.test.ts',
      'test/storage/**/*.test.ts',
      'test/integration/dynamo-faults.test.ts',
      'test/cli/sweep.test.ts',
    ],
    reporters: ['default', './vitest.mutation-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
