import { defineConfig } from 'vitest/config';

/**
 * The tests of the code that guards access and data, as Stryker runs them
 * (`npm run test:mutation:access`): the outbound fetch guard, the token verifiers, the API key
 * store and verifier, the system store. Each folder mirrors the code it mutates.
 */
export default defineConfig({
  test: {
    include: [
      'test/outbound/**/*.test.ts',
      'test/tokens/**/*.test.ts',
      'test/keys/**/*.test.ts',
      'test/systems/**/*.test.ts',
    ],
    reporters: ['default', './vitest.mutation-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
