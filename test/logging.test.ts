import { describe, expect, it } from 'vitest';
import { createLogger, SERVICE_NAME } from '../lib/logging';
import { captureOutput, logLines } from './http/events';

async function serviceOf(env: Record<string, string>): Promise<unknown> {
  const { output } = await captureOutput(async () => createLogger({ env }).info('hello'));
  return logLines(output)[0]?.service;
}

describe('createLogger', () => {
  it('names the service system-behavior-engine by default', async () => {
    expect(SERVICE_NAME).toBe('system-behavior-engine');
    expect(await serviceOf({})).toBe(SERVICE_NAME);
  });

  // The deployed functions set POWERTOOLS_SERVICE_NAME, the variable Powertools documents.
  it('takes the service name from POWERTOOLS_SERVICE_NAME when it is set', async () => {
    expect(await serviceOf({ POWERTOOLS_SERVICE_NAME: 'sbe-staging' })).toBe('sbe-staging');
  });

  it('refuses an unknown LOG_LEVEL at once, naming the variable', () => {
    expect(() => createLogger({ env: { LOG_LEVEL: 'loud' } })).toThrow('LOG_LEVEL must be one of');
  });
});
