import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createEngineFunction } from '../../../functions/engine/engine-function';
import { serializeOpenApiDocument } from '../../../lib/api/openapi';
import { readLimits } from '../../../lib/config/limits';
import type { HttpResult } from '../../../lib/http/responses';
import { createLogger } from '../../../lib/logging';
import { captureOutput, httpEvent } from '../../http/events';

const handler = createEngineFunction({
  limits: readLimits({}),
  logger: createLogger({ env: {} }),
  verifyApiKey: async () => undefined,
  systems: { get: async () => undefined, getRecord: async () => undefined },
});

function get(headers: Record<string, string> = {}) {
  const event = httpEvent({ method: 'GET', path: '/api/openapi.json', headers });
  return captureOutput(() => handler(event as never, {} as never) as Promise<HttpResult>);
}

describe('the engine function: GET /api/openapi.json', () => {
  // Anyone may read the API description, no key needed.
  it('serves the OpenAPI document as JSON', async () => {
    const { result, output } = await get();
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(result.body)).toEqual(JSON.parse(serializeOpenApiDocument()));
    expect(output).toContain('"route":"GET /api/openapi.json"');
  });

  // The document is several KB, so a client that accepts br gets it compressed.
  it('compresses it for clients that accept br', async () => {
    const { result } = await get({ 'Accept-Encoding': 'br' });
    expect(result.headers['content-encoding']).toBe('br');
    const text = brotliDecompressSync(Buffer.from(result.body, 'base64')).toString();
    expect(JSON.parse(text)).toEqual(JSON.parse(serializeOpenApiDocument()));
  });
});
