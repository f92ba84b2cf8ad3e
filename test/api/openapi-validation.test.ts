/**
 * The contract's cases (docs/api.md, the HTTP contract; the same ones test/integration runs)
 * sent through a validating proxy (express-openapi-validator, ./validating-proxy.ts) built from
 * the document the code builds now, in front of the local server. Every answer must match the
 * document, and every request the contract serves must be one the document allows: a gateway
 * that enforced the document would then break no caller. A planted fault shows it can fail.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeOpenApiDocument } from '../../lib/api/openapi';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from '../integration/server';
import { type FakeApi, startFakeApi } from '../outbound/fake-api';
import { startValidatingProxy, type ValidatingProxy } from './validating-proxy';

/** What a case needs from the cases before it: ids they created. */
interface Ids {
  systemId?: string;
  connectedId?: string;
  documentSystemId?: string;
  keyId?: string;
}

interface Case {
  name: string;
  method?: string;
  path: string | ((ids: Ids) => string);
  /** `key`: the local server's API key; `user`: a user access token; `none`; or a literal credential. */
  auth: 'key' | 'user' | 'none' | { bearer: string };
  /** An object is sent as JSON (`application/json` unless `headers` says otherwise); bytes as they are. */
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code?: string;
  keep?: (json: Record<string, unknown>, ids: Ids) => void;
}

const MAX_NODES = 50;
const MAX_BODY_BYTES = 200_000;
const json = (value: unknown) => JSON.stringify(value);
const analyze = { mode: 'analyze', ...WORKED };

/** The engine's cases: bodies in every accepted form, then each error of the order of checks. */
const ENGINE_CASES: Case[] = [
  { name: 'worked example, analyze', path: '/api/engine', auth: 'key', body: analyze, status: 200 },
  {
    name: 'tick, nested in graph',
    path: '/api/engine',
    auth: 'key',
    body: { graph: { mode: 'tick', ...WORKED } },
    status: 200,
  },
  {
    name: 'ticks 3, nested in payload',
    path: '/api/engine',
    auth: 'key',
    body: { mode: 'ticks', ticks: 3, payload: WORKED },
    status: 200,
  },
  {
    name: 'ticks by default',
    path: '/api/engine',
    auth: 'key',
    body: { mode: 'ticks', ...WORKED },
    status: 200,
  },
  {
    name: 'ticks of any type ignored in analyze',
    path: '/api/engine',
    auth: 'key',
    body: { ...analyze, ticks: 'many' },
    status: 200,
  },
  {
    name: 'ticks of any type ignored in tick',
    path: '/api/engine',
    auth: 'key',
    body: { mode: 'tick', ticks: [0], ...WORKED },
    status: 200,
  },
  {
    name: 'extra fields everywhere',
    path: '/api/engine',
    auth: 'key',
    body: { ...analyze, note: 'x', nodes: WORKED.nodes.map((n) => ({ ...n, team: 'a' })) },
    status: 200,
  },
  {
    name: 'as text/plain',
    path: '/api/engine',
    auth: 'key',
    body: json(analyze),
    headers: { 'content-type': 'text/plain' },
    status: 200,
  },
  {
    name: "as curl -d's form type",
    path: '/api/engine',
    auth: 'key',
    body: json(analyze),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 200,
  },
  {
    name: 'with no content type',
    path: '/api/engine',
    auth: 'key',
    body: Buffer.from(json(analyze)),
    status: 200,
  },
  {
    name: 'gzip as octet-stream',
    path: '/api/engine',
    auth: 'key',
    body: gzipSync(json(analyze)),
    headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
    status: 200,
  },
  {
    name: 'br as octet-stream',
    path: '/api/engine',
    auth: 'key',
    body: brotliCompressSync(json(analyze)),
    headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'br' },
    status: 200,
  },
  {
    name: 'deflate as octet-stream',
    path: '/api/engine',
    auth: 'key',
    body: deflateSync(json(analyze)),
    headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'deflate' },
    status: 200,
  },
  {
    name: 'compressed answer',
    path: '/api/engine',
    auth: 'key',
    body: analyze,
    headers: { 'accept-encoding': 'gzip, br' },
    status: 200,
  },
  {
    name: 'no Authorization',
    path: '/api/engine',
    auth: 'none',
    body: analyze,
    status: 401,
    code: 'MISSING_API_KEY',
  },
  {
    name: 'unknown key',
    path: '/api/engine',
    auth: { bearer: 'sbe_unknownunknownunknown' },
    body: analyze,
    status: 403,
    code: 'INVALID_API_KEY',
  },
  {
    name: 'body over the limit',
    path: '/api/engine',
    auth: 'key',
    body: { ...analyze, pad: 'x'.repeat(MAX_BODY_BYTES) },
    status: 413,
    code: 'LIMIT_EXCEEDED',
  },
  {
    name: 'unknown coding',
    path: '/api/engine',
    auth: 'key',
    body: Buffer.from('(zstd)'),
    headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'zstd' },
    status: 415,
    code: 'UNSUPPORTED_CONTENT_ENCODING',
  },
  {
    name: 'not JSON',
    path: '/api/engine',
    auth: 'key',
    body: '{"mode": "analyze",}',
    headers: { 'content-type': 'application/json' },
    status: 500,
    code: 'PAYLOAD_ERROR',
  },
  {
    name: 'a JSON array',
    path: '/api/engine',
    auth: 'key',
    body: [analyze],
    status: 500,
    code: 'PAYLOAD_ERROR',
  },
  { name: 'mode missing', path: '/api/engine', auth: 'key', body: WORKED, status: 400, code: 'INVALID_MODE' },
  {
    name: 'mode unknown',
    path: '/api/engine',
    auth: 'key',
    body: { ...analyze, mode: 'simulate' },
    status: 400,
    code: 'INVALID_MODE',
  },
  {
    name: 'ticks 0 in mode ticks',
    path: '/api/engine',
    auth: 'key',
    body: { mode: 'ticks', ticks: 0, ...WORKED },
    status: 400,
    code: 'INVALID_TICKS',
  },
  {
    name: 'no structure',
    path: '/api/engine',
    auth: 'key',
    body: { mode: 'analyze', payload: {} },
    status: 500,
    code: 'PAYLOAD_ERROR',
  },
  {
    name: 'unknown node',
    path: '/api/engine',
    auth: 'key',
    body: { ...analyze, dependencies: [{ from: 'A', to: 'Z' }] },
    status: 500,
    code: 'PAYLOAD_ERROR',
  },
  {
    name: 'too many nodes',
    path: '/api/engine',
    auth: 'key',
    body: {
      mode: 'analyze',
      nodes: Array.from({ length: MAX_NODES + 1 }, (_, i) => ({ id: `n${i}` })),
      dependencies: [],
    },
    status: 413,
    code: 'LIMIT_EXCEEDED',
  },
  {
    name: 'unknown systemId',
    path: '/api/engine',
    auth: 'key',
    body: { mode: 'analyze', systemId: 'nope' },
    status: 404,
    code: 'SYSTEM_NOT_FOUND',
  },
];

/** The user-token routes: keys, systems, connect, refresh, and the document itself. */
const USER_CASES: Case[] = [
  {
    name: 'create a key',
    method: 'POST',
    path: '/api/keys',
    auth: 'user',
    body: { name: 'ci' },
    status: 201,
    keep: (j, ids) => {
      ids.keyId = String(j.id);
    },
  },
  {
    name: 'create a key, an unknown field',
    method: 'POST',
    path: '/api/keys',
    auth: 'user',
    body: { name: 'ci 2', team: 'ops' },
    status: 400,
  },
  {
    name: 'create a key without a name',
    method: 'POST',
    path: '/api/keys',
    auth: 'user',
    body: {},
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'create a key without a token',
    method: 'POST',
    path: '/api/keys',
    auth: 'none',
    body: { name: 'x' },
    status: 401,
    code: 'MISSING_TOKEN',
  },
  { name: 'list keys', method: 'GET', path: '/api/keys', auth: 'user', status: 200 },
  { name: 'HEAD keys', method: 'HEAD', path: '/api/keys', auth: 'user', status: 200 },
  {
    name: 'list keys, bad token',
    method: 'GET',
    path: '/api/keys',
    auth: { bearer: 'not.a.token' },
    status: 401,
    code: 'INVALID_TOKEN',
  },
  {
    name: 'register a system',
    method: 'POST',
    path: '/api/systems',
    auth: 'user',
    body: { name: 'doc', document: WORKED },
    status: 201,
    keep: (j, ids) => {
      ids.documentSystemId = String(j.id);
    },
  },
  {
    name: 'register an unreadable document',
    method: 'POST',
    path: '/api/systems',
    auth: 'user',
    body: { name: 'doc', document: { nodes: 'x' } },
    status: 422,
    code: 'UPSTREAM_INVALID',
  },
  {
    name: 'connect',
    method: 'POST',
    path: '/api/connect',
    auth: 'user',
    body: (upstream: string) => ({ name: 'api', url: `${upstream}/graph` }),
    status: 201,
    keep: (j, ids) => {
      ids.connectedId = String(j.id);
    },
  },
  {
    name: 'connect, dry run',
    method: 'POST',
    path: '/api/connect',
    auth: 'user',
    body: (upstream: string) => ({ name: 'api', url: `${upstream}/graph`, dryRun: true }),
    status: 200,
  },
  {
    name: 'connect, a refused scheme',
    method: 'POST',
    path: '/api/connect',
    auth: 'user',
    body: { name: 'api', url: 'ftp://example.com/graph' },
    status: 400,
  },
  {
    name: 'connect, upstream 404',
    method: 'POST',
    path: '/api/connect',
    auth: 'user',
    body: (upstream: string) => ({ name: 'api', url: `${upstream}/missing` }),
    status: 502,
    code: 'UPSTREAM_ERROR',
  },
  {
    name: 'connect, not a graph',
    method: 'POST',
    path: '/api/connect',
    auth: 'user',
    body: (upstream: string) => ({ name: 'api', url: `${upstream}/not-a-graph` }),
    status: 422,
    code: 'UPSTREAM_INVALID',
  },
  { name: 'list systems', method: 'GET', path: '/api/systems?limit=10', auth: 'user', status: 200 },
  { name: 'HEAD systems', method: 'HEAD', path: '/api/systems?limit=10', auth: 'user', status: 200 },
  {
    name: 'list systems, bad limit',
    method: 'GET',
    path: '/api/systems?limit=0',
    auth: 'user',
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    // Number('1e1') is 10: a limit is a whole number in digits, or refused.
    name: 'list systems, a limit in exponent form',
    method: 'GET',
    path: '/api/systems?limit=1e1',
    auth: 'user',
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'get a system',
    method: 'GET',
    path: (ids) => `/api/systems/${ids.connectedId}`,
    auth: 'user',
    status: 200,
  },
  {
    name: 'HEAD a system',
    method: 'HEAD',
    path: (ids) => `/api/systems/${ids.connectedId}`,
    auth: 'user',
    status: 200,
  },
  {
    name: 'get an unknown system',
    method: 'GET',
    path: '/api/systems/nope',
    auth: 'user',
    status: 404,
    code: 'SYSTEM_NOT_FOUND',
  },
  { name: 'HEAD an unknown system', method: 'HEAD', path: '/api/systems/nope', auth: 'user', status: 404 },
  {
    name: 'set capacities',
    method: 'PATCH',
    path: (ids) => `/api/systems/${ids.connectedId}`,
    auth: 'user',
    body: { settings: { defaultCapacity: 3 } },
    status: 200,
  },
  {
    name: 'set capacities on a stale ETag',
    method: 'PATCH',
    path: (ids) => `/api/systems/${ids.connectedId}`,
    auth: 'user',
    headers: { 'if-match': '"settings-0"' },
    body: { settings: { defaultCapacity: 4 } },
    status: 412,
    code: 'PRECONDITION_FAILED',
  },
  {
    name: 'set capacities with a typo',
    method: 'PATCH',
    path: (ids) => `/api/systems/${ids.connectedId}`,
    auth: 'user',
    body: { settings: { defaultCapacty: 4 } },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'register from a body that is not JSON',
    method: 'POST',
    path: '/api/systems',
    auth: 'user',
    headers: { 'content-type': 'application/json' },
    body: '{"name":',
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'set a capacity of an unknown node',
    method: 'PATCH',
    path: (ids) => `/api/systems/${ids.connectedId}`,
    auth: 'user',
    body: { settings: { nodes: { Z: { capacity: 1 } } } },
    status: 400,
    code: 'INVALID_REQUEST',
  },
  {
    name: 'engine by systemId',
    path: '/api/engine',
    auth: 'key',
    body: (_upstream: string, ids: Ids) => ({ mode: 'tick', systemId: ids.connectedId }),
    status: 200,
  },
  {
    name: 'refresh',
    method: 'POST',
    path: (ids) => `/api/systems/${ids.connectedId}/refresh`,
    auth: 'user',
    body: {},
    status: 200,
  },
  {
    name: 'refresh a system without a URL',
    method: 'POST',
    path: (ids) => `/api/systems/${ids.documentSystemId}/refresh`,
    auth: 'user',
    body: {},
    status: 400,
  },
  {
    name: 'refresh an unknown system',
    method: 'POST',
    path: '/api/systems/nope/refresh',
    auth: 'user',
    body: {},
    status: 404,
    code: 'SYSTEM_NOT_FOUND',
  },
  {
    name: 'delete a system',
    method: 'DELETE',
    path: (ids) => `/api/systems/${ids.documentSystemId}`,
    auth: 'user',
    status: 204,
  },
  {
    name: 'delete an unknown system',
    method: 'DELETE',
    path: '/api/systems/nope',
    auth: 'user',
    status: 404,
    code: 'SYSTEM_NOT_FOUND',
  },
  {
    name: 'revoke a key',
    method: 'DELETE',
    path: (ids) => `/api/keys/${ids.keyId}`,
    auth: 'user',
    status: 204,
  },
  {
    name: 'revoke an unknown key',
    method: 'DELETE',
    path: '/api/keys/nope',
    auth: 'user',
    status: 404,
    code: 'KEY_NOT_FOUND',
  },
  { name: 'the document', method: 'GET', path: '/api/openapi.json', auth: 'none', status: 200 },
  { name: 'HEAD the document', method: 'HEAD', path: '/api/openapi.json', auth: 'none', status: 200 },
];

const document = JSON.parse(serializeOpenApiDocument());
let server: TestServer;
let upstream: FakeApi;
let proxy: ValidatingProxy;
let userToken: string;
const ids: Ids = {};

beforeAll(async () => {
  server = await startTestServer({
    LOG_LEVEL: 'WARN',
    CONNECT_ALLOW_HOSTS: '127.0.0.1',
    MAX_NODES: String(MAX_NODES),
    MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  });
  // The owner of the server's API key, so `{ mode, systemId }` finds the systems registered here.
  userToken = server.userToken;
  upstream = await startFakeApi((request, response) => {
    if (request.url === '/graph') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(json(WORKED));
    } else if (request.url === '/not-a-graph') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(json({ hello: 'world' }));
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not here');
    }
  });
  proxy = await startValidatingProxy(server.url, document);
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
  await server?.close();
});

async function send(base: string, testCase: Case) {
  const credential =
    testCase.auth === 'key'
      ? server.apiKey
      : testCase.auth === 'user'
        ? userToken
        : testCase.auth === 'none'
          ? null
          : testCase.auth.bearer;
  const path = typeof testCase.path === 'function' ? testCase.path(ids) : testCase.path;
  const body = typeof testCase.body === 'function' ? testCase.body(upstream.origin, ids) : testCase.body;
  const headers = testCase.headers ?? {};
  // Bytes and strings go as they are; fetch sends bytes with no Content-Type at all.
  const raw = Buffer.isBuffer(body) || typeof body === 'string';
  return post(base, credential, raw ? new Uint8Array(Buffer.from(body as Buffer)) : body, {
    method: testCase.method ?? 'POST',
    path,
    headers: raw && testCase.headers === undefined ? { 'content-type': '' } : headers,
  });
}

describe('the contract, through a proxy that validates against the OpenAPI document', () => {
  it.each([...ENGINE_CASES, ...USER_CASES].map((testCase) => ({ ...testCase, label: testCase.name })))(
    '$label: $status, the answer as documented',
    async (testCase) => {
      const before = proxy.violations.length;
      const answer = await send(proxy.url, testCase);
      expect(answer.status, answer.text).toBe(testCase.status);
      if (testCase.code !== undefined) expect(answer.json?.error?.code).toBe(testCase.code);
      if (answer.json !== undefined) testCase.keep?.(answer.json, ids);
      const found = proxy.violations.slice(before);
      expect(found.filter((violation) => violation.kind === 'response')).toEqual([]);
      // A request the contract serves is one the document allows.
      if (testCase.status < 300) expect(found).toEqual([]);
    },
  );

  // Those the document itself rules out are refused by it too: the validator is looking.
  it('flags requests the document rules out', () => {
    const refused = new Set(proxy.violations.filter((v) => v.kind === 'request').map((v) => v.request));
    expect(refused).toContain('POST /api/keys');
    expect([...proxy.violations].some((v) => v.messages.some((m) => /mode/.test(m)))).toBe(true);
  });
});

describe('a planted fault', () => {
  // The analyze answer's `engine` renamed in the document: the real answer no longer fits it.
  it('is reported as a response violation', async () => {
    const planted = structuredClone(document);
    const analyzeSchema = planted.components.schemas.AnalyzeResponse;
    analyzeSchema.required = analyzeSchema.required.map((name: string) =>
      name === 'engine' ? 'result' : name,
    );
    const faulty = await startValidatingProxy(server.url, planted);
    try {
      const answer = await send(faulty.url, ENGINE_CASES[0]!);
      expect(answer.status).toBe(200);
      expect(faulty.violations).toEqual([
        expect.objectContaining({ kind: 'response', request: 'POST /api/engine' }),
      ]);
    } finally {
      await faulty.close();
    }
  });
});
