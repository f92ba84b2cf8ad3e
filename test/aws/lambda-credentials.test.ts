import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { functionBundling } from '../../infra/functions';
import { PROJECT_ROOT } from '../../infra/project';
import { defaultProvider } from '../../lib/aws/lambda-credentials';

afterEach(() => vi.unstubAllEnvs());

describe('lib/aws/lambda-credentials (the default provider inside Lambda bundles)', () => {
  // What Lambda sets for the execution role: the provider hands exactly that to the client.
  it('reads the role credentials Lambda puts in the environment', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAEXAMPLEEXAMPLE01');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-from-the-role');
    vi.stubEnv('AWS_SESSION_TOKEN', 'session-from-the-role');
    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLEEXAMPLE01',
      secretAccessKey: 'secret-from-the-role',
      sessionToken: 'session-from-the-role',
    });
  });

  // No fallback to files, SSO or instance metadata: without the variables it fails at once.
  it('fails without the variables instead of searching elsewhere', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', undefined as unknown as string);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined as unknown as string);
    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });

  it('is what a bundled SDK resolves the default chain to, and an external SDK keeps its own', () => {
    const target = './lib/aws/lambda-credentials.ts';
    expect(existsSync(join(PROJECT_ROOT, target))).toBe(true);
    // (With tracing on; without it the tracer's stand-in is aliased too, test/infra/bundle-sizes.test.ts.)
    expect(functionBundling('bundled', true).alias).toEqual({
      '@aws-sdk/credential-provider-node': target,
    });
    expect(functionBundling('external', true).alias).toBeUndefined();
    expect(functionBundling('external', false).alias).toEqual({
      '@aws-lambda-powertools/tracer': './lib/aws/tracer-off.ts',
    });
  });
});
