import { describe, expect, it } from 'vitest';
import { resolveKeysTarget } from '../../cli/keys';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { awsSdkEnv, envInt, envString, requiredEnv } from '../../lib/config/env';
import { readLimits } from '../../lib/config/limits';
import { readCorsSettings } from '../../lib/http/cors';
import { resolveCacheTtlMs } from '../../lib/keys/verifier';
import { createLogger } from '../../lib/logging';
import { startLocalServer } from '../../local/server';

const range = { min: 1, max: 1000 };

describe('envInt', () => {
  it('uses the default when the variable is not set', () => {
    // A fresh deployment with no overrides.
    expect(envInt({}, 'MAX_TICKS', 1000, range)).toBe(1000);
  });

  it('reads a plain decimal integer, surrounding spaces allowed', () => {
    // An operator lowers the limit; a stray space from a template is harmless.
    expect(envInt({ MAX_TICKS: ' 250 ' }, 'MAX_TICKS', 1000, range)).toBe(250);
  });

  it.each([['abc'], ['10.5'], ['1e3'], ['0x10'], ['1_000'], ['12abc'], ['99999999999999999999']])(
    'throws naming the variable for %j',
    (value) => {
      // A typo must stop the cold start, not silently become the default.
      expect(() => envInt({ MAX_TICKS: value }, 'MAX_TICKS', 1000, range)).toThrow(
        /^MAX_TICKS must be an integer from 1 to 1000; got "/,
      );
    },
  );

  it('throws for a value outside the range', () => {
    // Raising ticks past the contract's ceiling is refused.
    expect(() => envInt({ MAX_TICKS: '1001' }, 'MAX_TICKS', 1000, range)).toThrow(
      'MAX_TICKS must be an integer from 1 to 1000; got 1001',
    );
    expect(() => envInt({ MAX_TICKS: '0' }, 'MAX_TICKS', 1000, range)).toThrow(/MAX_TICKS/);
  });

  it('throws for a set-but-empty variable instead of using the default', () => {
    // `MAX_TICKS=${UNSET}` in a template renders as an empty string.
    expect(() => envInt({ MAX_TICKS: '' }, 'MAX_TICKS', 1000, range)).toThrow(/MAX_TICKS is set but empty/);
  });

  it('cuts a long bad value short in the message', () => {
    const message = captureMessage(() => envInt({ MAX_NODES: 'x'.repeat(5000) }, 'MAX_NODES', 1, range));
    expect(message.length).toBeLessThan(120);
  });
});

describe('envString', () => {
  it('uses the default when unset and the value when allowed', () => {
    expect(envString({}, 'LOG_LEVEL', 'INFO', { allowed: ['INFO', 'DEBUG'] })).toBe('INFO');
    expect(envString({ LOG_LEVEL: 'DEBUG' }, 'LOG_LEVEL', 'INFO', { allowed: ['INFO', 'DEBUG'] })).toBe(
      'DEBUG',
    );
  });

  it('throws naming the variable, without repeating the value', () => {
    // Someone pasted a secret into the wrong variable: the message must not echo it.
    const message = captureMessage(() =>
      envString({ LOG_LEVEL: 'sbe_secretvalue' }, 'LOG_LEVEL', 'INFO', { allowed: ['INFO', 'DEBUG'] }),
    );
    expect(message).toBe('LOG_LEVEL must be one of "INFO", "DEBUG"');
    expect(message).not.toContain('secret');
  });

  it('checks a pattern', () => {
    expect(() => envString({ TABLE: 'bad name!' }, 'TABLE', 'keys', { pattern: /^[\w.-]+$/ })).toThrow(
      /^TABLE must match/,
    );
  });
});

describe('requiredEnv', () => {
  it('returns the value, and throws naming the variable when unset or empty', () => {
    expect(requiredEnv({ KEYS_TABLE: 'api-keys' }, 'KEYS_TABLE')).toBe('api-keys');
    expect(() => requiredEnv({}, 'KEYS_TABLE')).toThrow('KEYS_TABLE is required but not set');
    expect(() => requiredEnv({ KEYS_TABLE: ' ' }, 'KEYS_TABLE')).toThrow(/KEYS_TABLE is set but empty/);
  });
});

function captureMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
}

describe('one rule for every variable', () => {
  // Before, six places read the environment and most took an empty value for "unset". Now each
  // reader goes through lib/config/env.ts: set but empty is an error naming the variable,
  // wherever it is read.
  it.each<[string, () => unknown]>([
    ['LOG_LEVEL', () => createLogger({ env: { LOG_LEVEL: '' } })],
    ['DYNAMODB_ENDPOINT', () => createDynamoClients({ env: { DYNAMODB_ENDPOINT: ' ' } })],
    ['API_KEY_CACHE_TTL_MS', () => resolveCacheTtlMs(undefined, { API_KEY_CACHE_TTL_MS: '' })],
    ['TABLE_NAME', () => resolveKeysTarget({ TABLE_NAME: '' })],
    ['DYNAMO_PORT', () => resolveKeysTarget({ DYNAMO_PORT: '' })],
    ['MAX_DECODED_BODY_BYTES', () => readLimits({ MAX_DECODED_BODY_BYTES: '' })],
    ['CORS_ALLOW_ORIGINS', () => readCorsSettings({ CORS_ALLOW_ORIGINS: '' })],
  ])('refuses an empty %s', (name, read) => {
    expect(read).toThrow(`${name} is set but empty`);
  });

  it('refuses an empty DATA_DIR, DEV_API_KEY or ENGINE_WORKERS when the local server starts', async () => {
    for (const name of ['DATA_DIR', 'DEV_API_KEY', 'REQUEST_TIMEOUT_MS', 'ENGINE_WORKERS']) {
      await expect(
        startLocalServer({ quiet: true, port: 0, dynamoPort: 0, env: { [name]: '' } }),
      ).rejects.toThrow(`${name} is set but empty`);
    }
  });

  // The AWS SDK's own variables keep the SDK's rule (empty = unset), so the two never disagree.
  it("leaves the AWS SDK's variables to the SDK's rule", () => {
    expect(awsSdkEnv({ AWS_REGION: '' }, 'AWS_REGION')).toBeUndefined();
    expect(awsSdkEnv({ AWS_REGION: ' eu-west-1 ' }, 'AWS_REGION')).toBe('eu-west-1');
  });
});
