/**
 * A stored system past the response limit, over real HTTP, on a server of its own: its limit is
 * 16 KiB (a server's handlers serve one configuration per process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalIssuer, signAccessToken } from '../../lib/tokens';
import { post, startTestServer, type TestServer } from './server';

// A stored system is returned whole, up to a full-size one's 20 MB of JSON: compressed when the
// client allows, else a 413 that says how to get it. It went out uncompressed and unchecked, which
// Lambda refuses past 6 MB with no body of ours. Here the response limit is 16 KiB, and a chain of
// 600 nodes some 40 KB of JSON (a few KB compressed).
describe('GET /api/systems/{id} past the response limit', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ LOG_LEVEL: 'WARN', MAX_RESPONSE_BYTES: String(16 * 1024) });
  });
  afterAll(() => small.close());

  it('is compressed when the client allows, and a 413 that says how to get it when not', async () => {
    const token = signAccessToken(readLocalIssuer(small.issuerFile), { sub: 'carol' });
    const ids = Array.from({ length: 600 }, (_, i) => `service-${String(i).padStart(4, '0')}`);
    const document = {
      nodes: ids.map((id) => ({ id, load: 1 })),
      dependencies: ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id })),
    };
    const created = await post(small.url, token, { name: 'long chain', document }, { path: '/api/systems' });
    expect(created.status, created.text).toBe(201);
    const path = `/api/systems/${created.json.id}`;
    const compressed = await post(small.url, token, undefined, {
      method: 'GET',
      path,
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(compressed.status).toBe(200);
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(compressed.json.structure.nodes).toHaveLength(600);
    const plain = await post(small.url, token, undefined, {
      method: 'GET',
      path,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status).toBe(413);
    expect(plain.json.error).toEqual({
      code: 'LIMIT_EXCEEDED',
      message:
        'The result is larger than the response limit of 16384 bytes. Send `Accept-Encoding: br, gzip` to receive it compressed, or run the system by `systemId` instead, which reads it where it is stored.',
    });
  });

  // The OpenAPI document is returned whole too: its 413 says where else to read it, not to send
  // a smaller structure (it was the engine's advice).
  it('says where else to read the OpenAPI document when it does not fit', async () => {
    const plain = await post(small.url, null, undefined, {
      method: 'GET',
      path: '/api/openapi.json',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status).toBe(413);
    expect(plain.json.error.message).toBe(
      'The result is larger than the response limit of 16384 bytes. Send `Accept-Encoding: br, gzip` to receive it compressed, or read `openapi.json` from the project the service was deployed from.',
    );
  });
});
