import { describe, expect, it, vi } from 'vitest';
import { readLimits } from '../../../lib/config/limits';
import type { HttpResult } from '../../../lib/http/responses';
import { createLogger } from '../../../lib/logging';
import { captureOutput, httpEvent, logLines, WORKED } from '../../http/events';

// Models a bug inside the engine: analyze throws for one particular structure. The engine
// module is replaced only for this file; everything else in the chain is real. The service
// answers through writeAnalyze (it writes the JSON text straight from the engine's arrays).
vi.mock('../../../lib/engine', async (importOriginal) => {
  const engine = await importOriginal<typeof import('../../../lib/engine')>();
  return {
    ...engine,
    writeAnalyze: () => {
      throw new RangeError('index 7 out of bounds in node "internal-detail"');
    },
  };
});

const { createEngineFunction } = await import('../../../functions/engine/engine-function');

describe('engine handler when the engine throws', () => {
  it('answers 500 ENGINE_ERROR with a generic message and logs the cause with the request id', async () => {
    const handler = createEngineFunction({
      verifyApiKey: async () => ({ id: 'key-1', owner: 'o' }),
      systems: { get: async () => undefined, getRecord: async () => undefined },
      limits: readLimits({}),
      logger: createLogger({ env: {} }),
    });
    const event = httpEvent({
      headers: { authorization: 'Bearer sbe_x' },
      body: { mode: 'analyze', ...WORKED },
    });
    const { result, output } = await captureOutput(
      () => handler(event as never, {} as never) as Promise<HttpResult>,
    );

    expect(result.statusCode).toBe(500);
    const body = JSON.parse(result.body);
    expect(body.error.code).toBe('ENGINE_ERROR');
    expect(result.body).not.toContain('internal-detail');
    expect(result.body).not.toContain('RangeError');

    const logs = logLines(output);
    expect(logs.map((line) => line.message)).toEqual(['engine failure', 'request']);
    expect(logs[0]).toMatchObject({ level: 'ERROR', requestId: 'req-test-1' });
    expect(JSON.stringify(logs[0])).toContain('internal-detail');
    expect(logs[1]).toMatchObject({ status: 500, errorCode: 'ENGINE_ERROR', mode: 'analyze' });
  });
});
