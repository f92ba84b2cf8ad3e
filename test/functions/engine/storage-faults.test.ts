/**
 * A storage fault that outlived its retries, met while checking the API key: the caller gets 503
 * SERVICE_UNAVAILABLE with Retry-After, and the request line says so exactly as it says every
 * other error (`status`, `errorCode`), so a metric filter on `$.errorCode = "SERVICE_UNAVAILABLE"`
 * counts these answers and nothing else.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createEngineFunction } from '../../../functions/engine/engine-function';
import { readLimits } from '../../../lib/config/limits';
import { createLogger } from '../../../lib/logging';
import { isStoreUnavailable } from '../../../lib/storage/faults';
import { captureOutput, httpEvent, logLines, WORKED } from '../../http/events';

function engineWith(verifyApiKey: () => Promise<{ id: string; owner: string }>) {
  return createEngineFunction({
    verifyApiKey,
    isUnavailable: isStoreUnavailable,
    systems: { get: async () => undefined, getRecord: async () => undefined },
    limits: readLimits({}),
    logger: createLogger({ env: {} }),
  });
}

const throttled = () =>
  new ProvisionedThroughputExceededException({
    message: 'The level of configured provisioned throughput for the table was exceeded.',
    $metadata: { httpStatusCode: 400, attempts: 3 },
  });

describe('a storage fault while checking the key', () => {
  it('is a 503 with Retry-After, a WARN line and a request line with its code', async () => {
    const handler = engineWith(async () => {
      throw throttled();
    });
    const { result, output } = await captureOutput(
      () =>
        handler(
          httpEvent({
            headers: { authorization: 'Bearer sbe_x' },
            body: { mode: 'analyze', ...WORKED },
          }) as never,
          {} as never,
        ) as Promise<{ statusCode: number; headers: Record<string, string>; body: string }>,
    );
    expect(result.statusCode).toBe(503);
    expect(result.headers['retry-after']).toBe('2');
    expect(JSON.parse(result.body)).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/try again in 2 seconds/) },
    });
    const lines = logLines(output);
    expect(lines.filter((line) => line.message === 'request')).toMatchObject([
      { status: 503, errorCode: 'SERVICE_UNAVAILABLE', route: 'POST /api/engine' },
    ]);
    expect(lines.find((line) => line.message === 'storage unavailable')).toMatchObject({
      level: 'WARN',
      error: expect.stringContaining('ProvisionedThroughputExceededException'),
    });
  });

  // A bug in the key check is still a bug: 500 INTERNAL_ERROR, logged as an error.
  it('leaves other failures a 500', async () => {
    const handler = engineWith(async () => {
      throw new TypeError('x is undefined');
    });
    const { result } = await captureOutput(
      () =>
        handler(
          httpEvent({
            headers: { authorization: 'Bearer sbe_x' },
            body: { mode: 'analyze', ...WORKED },
          }) as never,
          {} as never,
        ) as Promise<{ statusCode: number; body: string }>,
    );
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body).error.code).toBe('INTERNAL_ERROR');
  });
});
