/**
 * A revoked key stops working at once on the server that revoked it, whatever the key cache's
 * TTL: the local server runs the function that revokes and the one that caches keys in one
 * process, the engine in worker threads that the main thread tells of each revoke. (Deployed,
 * they are two functions, and the TTL bounds the delay: docs/keys.md.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readLocalIssuer, signAccessToken } from '../../lib/tokens';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;

beforeAll(async () => {
  // The longest cache a deployment may configure: before, a revoke waited this long.
  server = await startTestServer({ LOG_LEVEL: 'WARN' }, { apiKeyCacheTtlMs: 60_000 });
});

afterAll(() => server.close());

it('refuses a revoked key at the next request, though it was cached a moment before', async () => {
  const token = signAccessToken(readLocalIssuer(server.issuerFile), { sub: 'dave' });
  const created = await post(server.url, token, { name: 'ci' }, { path: '/api/keys' });
  expect(created.status).toBe(201);
  const engine = () => post(server.url, created.json.key, { mode: 'analyze', ...WORKED });
  expect((await engine()).status).toBe(200);
  expect((await engine()).status).toBe(200);

  const revoked = await post(server.url, token, undefined, {
    method: 'DELETE',
    path: `/api/keys/${created.json.id}`,
  });
  expect(revoked.status).toBe(204);
  const after = await engine();
  expect(after.status).toBe(403);
  expect(after.json.error.code).toBe('INVALID_API_KEY');
});
