import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalIssuer, signAccessToken } from '../../lib/tokens';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'WARN' });
  const issuer = readLocalIssuer(server.issuerFile);
  alice = signAccessToken(issuer, { sub: 'alice' });
  bob = signAccessToken(issuer, { sub: 'bob' });
});

afterAll(() => server.close());

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  post(server.url, token, body, { method, path });

describe('user access tokens over HTTP', () => {
  // No token, another scheme, or a token that is not ours: 401 with the contract's codes.
  it('answers 401 MISSING_TOKEN or INVALID_TOKEN, with WWW-Authenticate', async () => {
    const none = await call(null, 'GET', '/api/keys');
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe('MISSING_TOKEN');
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const forged = await call(`${alice.slice(0, -4)}AAAA`, 'GET', '/api/keys');
    expect(forged.status).toBe(401);
    expect(forged.json.error.code).toBe('INVALID_TOKEN');
    expect(forged.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    // A token field left blank (`Bearer` and nothing after it) is said to be that.
    const blank = await call('', 'GET', '/api/keys');
    expect(blank.status).toBe(401);
    expect(blank.json.error).toEqual({
      code: 'MISSING_TOKEN',
      message:
        'The Authorization header holds no access token after Bearer: `Authorization: Bearer <USER_ACCESS_TOKEN>`.',
    });
    // The header sent twice, with one good token both times: said so.
    const twice = await fetch(`${server.url}/api/keys`, {
      headers: [
        ['authorization', `Bearer ${alice}`],
        ['authorization', `Bearer ${alice}`],
      ],
    });
    expect(twice.status).toBe(401);
    expect(((await twice.json()) as { error: unknown }).error).toEqual({
      code: 'MISSING_TOKEN',
      message:
        'The Authorization header was sent more than once; send one: `Authorization: Bearer <USER_ACCESS_TOKEN>`.',
    });
    // An API key is not a user token, and a user token is not an API key.
    expect((await call(server.apiKey, 'GET', '/api/keys')).json.error.code).toBe('INVALID_TOKEN');
    expect((await post(server.url, alice, { mode: 'analyze', ...WORKED })).status).toBe(403);
  });

  // The wrong credential for the route gets the route's own code, saying which one it takes.
  it('says which credential a route takes when it gets the other one', async () => {
    const withKey = await call(server.apiKey, 'GET', '/api/keys');
    expect(withKey.status).toBe(401);
    expect(withKey.json.error).toEqual({
      code: 'INVALID_TOKEN',
      message: expect.stringMatching(/^This route takes a user access token, not an API key/),
    });
    expect(withKey.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(withKey.text).not.toContain(server.apiKey);

    // A Cognito access token is well over 512 characters, longer than any API key: the same answer.
    const long = signAccessToken(readLocalIssuer(server.issuerFile), {
      sub: 'alice',
      overrides: { padding: 'x'.repeat(800) },
    });
    for (const token of [alice, long]) {
      const withToken = await post(server.url, token, { mode: 'analyze', ...WORKED });
      expect(withToken.status).toBe(403);
      expect(withToken.json.error).toEqual({
        code: 'INVALID_API_KEY',
        message: expect.stringMatching(/^This route takes an API key, not a user access token/),
      });
    }

    // The right kind of credential, just not a valid one, keeps the usual words.
    const unknownKey = await post(server.url, `sbe_${'A'.repeat(43)}`, { mode: 'analyze', ...WORKED });
    expect(unknownKey.json.error.message).toBe(
      'The API key is not valid: it is unknown or has been revoked.',
    );
    const forged = await call(`${alice.slice(0, -4)}AAAA`, 'GET', '/api/keys');
    expect(forged.json.error.message).toMatch(/^The access token is not valid/);
    // A token with a part too many, or whose header is no JSON, is a token that is not valid,
    // not an API key: it was told "not an API key". A signed token asking for a critical
    // extension, or whose sub can be no owner, is refused as any other (the sub was a 400
    // naming "owner", a field of no body).
    const issuer = readLocalIssuer(server.issuerFile);
    for (const token of [
      `${alice}.`,
      `${'a'.repeat(100)}.b.c`,
      signAccessToken(issuer, { sub: 'alice', header: { crit: ['exp2'] } }),
      signAccessToken(issuer, { sub: 'OWNER#x' }),
    ]) {
      const refused = await call(token, 'GET', '/api/keys');
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('INVALID_TOKEN');
      expect(refused.json.error.message).toMatch(/^The access token is not valid/);
    }
  });

  // The token printed by npm start works as it is.
  it('accepts the token the local server prints', async () => {
    expect((await call(server.userToken, 'GET', '/api/keys')).status).toBe(200);
  });
});

describe('self-service API keys', () => {
  // Alice makes a key, sees it once, uses it on the engine, lists it, revokes it; Bob sees none of it.
  it('creates, lists and revokes the caller own keys only', async () => {
    const created = await call(alice, 'POST', '/api/keys', { name: 'laptop' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'laptop', status: 'active' });
    expect(created.json.key).toMatch(/^sbe_/);
    expect(Object.keys(created.json).sort()).toEqual(['createdAt', 'id', 'key', 'name', 'prefix', 'status']);

    const engine = await post(server.url, created.json.key, { mode: 'analyze', ...WORKED });
    expect(engine.status).toBe(200);

    const listed = await call(alice, 'GET', '/api/keys');
    expect(listed.json.keys.map((key: { id: string }) => key.id)).toEqual([created.json.id]);
    expect(listed.text).not.toContain(created.json.key);
    expect(listed.text).not.toMatch(/digest|[0-9a-f]{64}/);

    expect((await call(bob, 'GET', '/api/keys')).json.keys).toEqual([]);
    const stolen = await call(bob, 'DELETE', `/api/keys/${created.json.id}`);
    expect(stolen.status).toBe(404);
    expect(stolen.json.error.code).toBe('KEY_NOT_FOUND');

    const revoked = await call(alice, 'DELETE', `/api/keys/${created.json.id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expect((await post(server.url, created.json.key, { mode: 'analyze', ...WORKED })).status).toBe(403);
    expect((await call(alice, 'GET', '/api/keys')).json.keys[0].status).toBe('revoked');
  });

  it('refuses a key without a name, naming the field', async () => {
    const answer = await call(alice, 'POST', '/api/keys', {});
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('INVALID_REQUEST');
    expect(answer.json.error.details[0].path).toBe('name');
  });
});

describe('POST /api/systems: registering from a document', () => {
  // A graph the service cannot fetch, sent in the body: stored as connect stores a fetched one,
  // and the engine then runs on it by id, as on the same structure sent inline.
  it('registers the engine own format and runs the engine on it', async () => {
    const created = await call(alice, 'POST', '/api/systems', { name: 'from a file', document: WORKED });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name: 'from a file', nodes: 3, dependencies: 3, format: 'native' });
    expect(created.json).not.toHaveProperty('url');
    const keyed = await call(alice, 'POST', '/api/keys', { name: 'runs' });
    const stored = await post(server.url, keyed.json.key, { mode: 'analyze', systemId: created.json.id });
    const inline = await post(server.url, keyed.json.key, { mode: 'analyze', ...WORKED });
    expect(stored.text).toBe(inline.text);
    // Bob cannot see it.
    expect((await call(bob, 'GET', `/api/systems/${created.json.id}`)).status).toBe(404);
  });

  // Jaeger's dependency links, gzipped as a client may send a large document.
  it('reads another format from a gzipped body', async () => {
    const document = {
      data: [
        { parent: 'frontend', child: 'checkout', callCount: 100 },
        { parent: 'checkout', child: 'payment', callCount: 100 },
      ],
    };
    const body = gzipSync(JSON.stringify({ name: 'jaeger', format: 'dependency-links', document }));
    const answer = await post(server.url, alice, body, {
      method: 'POST',
      path: '/api/systems',
      headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json).toMatchObject({
      nodes: 3,
      dependencies: 2,
      format: 'dependency-links',
      unit: 'window',
    });
  });

  it('refuses a body without a document, naming the field, and a document no format reads, with 422', async () => {
    const missing = await call(alice, 'POST', '/api/systems', { name: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toMatch(/^document is required/);
    const unreadable = await call(alice, 'POST', '/api/systems', { name: 'x', document: { hello: 'world' } });
    expect(unreadable.status).toBe(422);
    expect(unreadable.json.error.code).toBe('UPSTREAM_INVALID');
    expect(unreadable.json.error.message).toMatch(/^The document is not a graph the service can read: /);
  });

  // JSON.parse reads a field nested 100,000 deep; it cannot be written back, so the element is
  // named and nothing is stored.
  it('names a node whose field is nested too deeply to store', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = `{"name":"deep","document":{"nodes":[{"id":"a"},{"id":"b","x":${deep}}],"links":[{"source":"a","target":"b"}]}}`;
    const answer = await post(server.url, alice, body, { method: 'POST', path: '/api/systems' });
    expect(answer.status, answer.text).toBe(413);
    expect(answer.json.error.message).toMatch(/nodes\[1\] has a field nested too deeply/);
    expect(
      (await call(alice, 'GET', '/api/systems')).json.systems.map((s: { name: string }) => s.name),
    ).not.toContain('deep');
  });
});
