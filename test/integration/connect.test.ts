import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { readLocalIssuer, signAccessToken } from '../../lib/tokens';
import { generate, toOtlp, workedExample } from '../formats/spans/traces';
import { captureOutput, logLines, WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

const EXTERNAL_TOKEN = 'ext-secret-token-4711';

/** A fake external API on loopback: fixed answers per path, every request's headers recorded. */
interface FakeApi {
  base: string;
  seen: Array<{ path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** A fixed answer, or `hang`: headers and the start of a body, then nothing. */
type FakeAnswer = { status: number; type?: string; body?: string; location?: string } | 'hang';

async function fakeApi(answers: Record<string, (base: string) => FakeAnswer>): Promise<FakeApi> {
  const seen: FakeApi['seen'] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const answer = answers[req.url ?? '']?.(base) ?? { status: 404, type: 'text/plain', body: 'no' };
    // Sends headers and then nothing: the fetch's deadline has to end it.
    if (answer === 'hang') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"nodes":');
      return;
    }
    res.writeHead(answer.status, {
      ...(answer.type ? { 'content-type': answer.type } : {}),
      ...(answer.location ? { location: answer.location } : {}),
    });
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (value: unknown) => ({ status: 200, type: 'application/json', body: JSON.stringify(value) });

/** docs' span worked example, 100 requests into frontend, as the Collector's file exporter writes it. */
const SPANS = generate(workedExample(), 100, 100_000);
const OTLP_LINES = [SPANS.slice(0, 200), SPANS.slice(200)]
  .map((part) => JSON.stringify(toOtlp(part)))
  .join('\n');
/** Tempo's service graph rates, as a Prometheus instant query answers them. */
const SERVICE_GRAPH = {
  status: 'success',
  data: {
    resultType: 'vector',
    result: [
      { metric: { client: 'user', server: 'web' }, value: [1767225600.5, '12'] },
      { metric: { client: 'web', server: 'api' }, value: [1767225600.5, '24'] },
    ],
  },
};

/**
 * 100,000 nodes (the node limit) and 100,000 dependencies: about 5 MB of JSON, just under the
 * 6 MiB an external answer may have, and far over what one DynamoDB item holds even compressed.
 */
const LARGE = (() => {
  let seed = 11;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed;
  };
  const count = 100_000;
  return {
    nodes: Array.from({ length: count }, (_, i) => ({ id: `n${i}`, load: next() % 50 })),
    dependencies: Array.from({ length: 100_000 }, (_, e) => ({
      from: `n${e % count}`,
      to: `n${next() % count}`,
    })),
  };
})();

/** Encoded once, so the fetch's deadline is spent on sending it, not on this process encoding it. */
const LARGE_ANSWER = json(LARGE);
/** 7 MiB of JSON, over the 6 MiB an external answer may have; encoded once too. */
const HUGE_ANSWER = json({ nodes: [{ id: 'A', note: 'x'.repeat(7 * 1024 * 1024) }], dependencies: [] });

/**
 * The connect function's outbound deadline in this file (`CONNECT_DEADLINE_MS`; 5 s by default),
 * so the hanging API is given up on in a second. Not much shorter: the 5 and 7 MiB answers
 * share this process's one event loop with the server, and on a busy machine sending them has
 * taken half a second; they must end by their own outcome, not by the deadline.
 */
const CONNECT_DEADLINE_MS = 1000;

let server: TestServer;
let upstream: FakeApi;
let other: FakeApi;
let bob: string;

beforeAll(async () => {
  server = await startTestServer({
    LOG_LEVEL: 'INFO',
    CONNECT_ALLOW_HOSTS: '127.0.0.1',
    CONNECT_DEADLINE_MS: String(CONNECT_DEADLINE_MS),
    // An external answer may be as large as a decoded engine body; 6 MiB here, so that the
    // over-the-limit case stays small.
    MAX_DECODED_BODY_BYTES: String(6 * 1024 * 1024),
  });
  bob = signAccessToken(readLocalIssuer(server.issuerFile), { sub: 'bob' });
  other = await fakeApi({ '/landing': () => json(WORKED) });
  upstream = await fakeApi({
    '/direct': () => json(WORKED),
    '/large': () => LARGE_ANSWER,
    '/nested': () => json({ payload: WORKED }),
    '/missing': () => ({ status: 404, type: 'application/json', body: '{}' }),
    '/broken': () => ({ status: 500, type: 'application/json', body: '{}' }),
    '/html': () => ({ status: 200, type: 'text/html', body: '<html></html>' }),
    '/dangling': () =>
      json({ nodes: WORKED.nodes, dependencies: [...WORKED.dependencies, { from: 'C', to: 'Z' }] }),
    '/to-other-origin': () => ({ status: 302, location: `${other.base}/landing` }),
    '/to-refused': () => ({ status: 302, location: 'http://127.0.0.2:9/' }),
    '/hang': () => 'hang',
    '/huge': () => HUGE_ANSWER,
    '/traces.jsonl': () => ({ status: 200, type: 'application/x-ndjson', body: OTLP_LINES }),
    '/api/v1/query': () => json(SERVICE_GRAPH),
  });
});

afterAll(async () => {
  await upstream.close();
  await other.close();
  await server.close();
});

const connect = (body: unknown, token = server.userToken) =>
  post(server.url, token, body, { path: '/api/connect' });
const get = (path: string, token = server.userToken) =>
  post(server.url, token, undefined, { path, method: 'GET' });

describe('POST /api/connect', () => {
  // The external API answers the worked example; the system is stored for the token's user.
  it('registers a system from the direct format, sending the external token', async () => {
    const answer = await connect({
      name: 'shop',
      url: `${upstream.base}/direct`,
      auth: { token: EXTERNAL_TOKEN },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json).toMatchObject({
      name: 'shop',
      url: `${upstream.base}/direct`,
      nodes: 3,
      dependencies: 3,
      // The engine's own format, read as it came: its numbers mean what the document says.
      format: 'native',
      unit: 'as-sent',
    });
    expect(Object.keys(answer.json).sort()).toEqual([
      'createdAt',
      'dependencies',
      'format',
      'id',
      'name',
      'nodes',
      'unit',
      'url',
      'version',
    ]);
    expect(upstream.seen.at(-1)?.headers.authorization).toBe(`Bearer ${EXTERNAL_TOKEN}`);
  });

  // The largest answer the fetch takes: stored in chunks, read back exactly.
  it('stores a structure at the node limit and gives it back byte for byte', async () => {
    expect(LARGE_ANSWER.body.length).toBeLessThan(6 * 1024 * 1024);
    const answer = await connect({ name: 'large', url: `${upstream.base}/large` });
    expect(answer.status, answer.text.slice(0, 300)).toBe(201);
    expect(answer.json).toMatchObject({ nodes: 100_000, dependencies: 100_000 });
    const read = await get(`/api/systems/${answer.json.id}`);
    expect(JSON.stringify(read.json.structure)).toBe(LARGE_ANSWER.body);
  });

  it('reads the nested format too', async () => {
    const answer = await connect({ name: 'nested', url: `${upstream.base}/nested` });
    expect(answer.status).toBe(201);
    expect(answer.json.nodes).toBe(3);
  });

  // The sample external API the local server serves itself, as printed by npm start.
  it('registers the local server sample API', async () => {
    const answer = await connect({ name: 'sample', url: `${server.url}/examples/worked-example.json` });
    expect(answer.status, answer.text).toBe(201);
  });

  // The sample traces (README, "From your traces to your headroom"): checkout's 200 requests over
  // 10 s, its self time and its calls, read back exactly.
  it('registers the local server sample traces', async () => {
    const answer = await connect({ name: 'traces', url: `${server.url}/examples/traces.jsonl`, window: 10 });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json).toMatchObject({ format: 'otlp-traces', unit: 'second', nodes: 3, dependencies: 2 });
    expect(answer.json.warnings).toBeUndefined();
    const { structure } = (await get(`/api/systems/${answer.json.id}`)).json;
    expect(
      structure.nodes.map((node: Record<string, unknown>) => [node.id, node.arrival, node.serviceTime]),
    ).toEqual([
      ['checkout', 20, 0.005],
      ['payments', undefined, 0.04],
      ['inventory', undefined, 0.01],
    ]);
    expect(structure.dependencies.map((d: Record<string, unknown>) => [d.from, d.to, d.weight])).toEqual([
      ['checkout', 'payments', 1],
      ['checkout', 'inventory', 3],
    ]);
  });

  // Each failure is told apart by its message too: a cap or a deadline answering for another
  // cause (the deadline here is short) would still give the same status and code.
  it.each([
    ['a 404', '/missing', 502, 'UPSTREAM_ERROR', 'answered 404 Not Found'],
    ['a 500', '/broken', 502, 'UPSTREAM_ERROR', 'answered 500 Internal Server Error'],
    ['HTML', '/html', 422, 'UPSTREAM_INVALID', 'has Content-Type text/html'],
    ['an invalid structure', '/dangling', 422, 'UPSTREAM_INVALID', 'unknown node "Z"'],
    ['a redirect to a refused address', '/to-refused', 400, 'URL_NOT_ALLOWED', 'redirected to uses port 9'],
    ['an answer over 6 MiB', '/huge', 502, 'UPSTREAM_ERROR', 'larger than the limit of 6291456 bytes'],
    [
      'no complete answer within the deadline',
      '/hang',
      502,
      'UPSTREAM_ERROR',
      `did not send a complete answer within ${CONNECT_DEADLINE_MS} ms`,
    ],
  ])('answers %s (%s) from the external API with %i %s', async (_name, path, status, code, message) => {
    const answer = await connect({ name: 'x', url: `${upstream.base}${path}` });
    expect(answer.status).toBe(status);
    expect(answer.json.error.code).toBe(code);
    expect(answer.json.error.message).toContain(message);
  });

  it('names the element of an invalid structure as the engine does', async () => {
    const answer = await connect({ name: 'x', url: `${upstream.base}/dangling` });
    expect(answer.json.error.message).toContain('dependencies[3].to: unknown node "Z"');
  });

  // Loopback spellings a broken guard would actually fetch: all refused before any connection.
  it.each([
    'http://localhost:9/',
    'http://[::1]:9/',
    'http://127.0.0.2:9/',
    'http://0.0.0.0:9/',
    'ftp://127.0.0.1/',
  ])('refuses %s with 400 URL_NOT_ALLOWED', async (url) => {
    const answer = await connect({ name: 'x', url });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('URL_NOT_ALLOWED');
  });

  // The token is for the URL it was given for: a redirect to another origin does not get it.
  it('does not forward the external token to another origin', async () => {
    const answer = await connect({
      name: 'moved',
      url: `${upstream.base}/to-other-origin`,
      auth: { token: EXTERNAL_TOKEN },
    });
    expect(answer.status, answer.text).toBe(201);
    expect(upstream.seen.at(-1)?.headers.authorization).toBe(`Bearer ${EXTERNAL_TOKEN}`);
    expect(other.seen.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('refuses a bad body naming the field, and needs a user token', async () => {
    const noName = await connect({ url: `${upstream.base}/direct` });
    expect(noName.status).toBe(400);
    expect(noName.json.error.details[0].path).toBe('name');
    expect((await connect({ name: 'x', url: 'not a url' })).json.error.details[0].path).toBe('url');
    expect((await connect({ name: 'x', url: `${upstream.base}/direct` }, server.apiKey)).status).toBe(401);
  });
});

describe('POST /api/connect: traces and rates', () => {
  // The Collector's file exporter served as a file: JSON Lines, read line by line, with the window
  // and sampling rate given; the record shows them, and so does GET.
  it('registers spans from a JSON Lines answer with a window and a sampling rate', async () => {
    const answer = await connect({
      name: 'traced',
      url: `${upstream.base}/traces.jsonl`,
      window: 20,
      sampleRate: 0.5,
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.json).toMatchObject({
      format: 'otlp-traces',
      unit: 'second',
      nodes: 4,
      dependencies: 3,
      readOptions: { window: 20, sampleRate: 0.5 },
    });
    const stored = await get(`/api/systems/${answer.json.id}`);
    expect(stored.json.readOptions).toEqual({ window: 20, sampleRate: 0.5 });
    const frontend = stored.json.structure.nodes.find((node: { id: string }) => node.id === 'frontend');
    // 100 requests over 20 s, one trace in two kept: 10 a second.
    expect(frontend).toMatchObject({ arrival: 10, serviceTime: 0.02 });
  });

  it('registers a Prometheus answer of service graph rates', async () => {
    const answer = await connect({ name: 'rates', url: `${upstream.base}/api/v1/query`, dryRun: true });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({
      format: 'prometheus',
      unit: 'second',
      entries: ['user'],
      warnings: [],
    });
  });

  // 400 naming the option, before anything is fetched.
  it.each([
    ['window', { window: -5 }],
    ['sampleRate', { sampleRate: 2 }],
    ['labels.to', { labels: { from: 'x', to: 'x' } }],
  ])('refuses a bad %s with 400 naming it', async (field, options) => {
    const before = upstream.seen.length;
    const answer = await connect({ name: 'x', url: `${upstream.base}/traces.jsonl`, ...options });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: field }] });
    expect(answer.json.error.message).toMatch(new RegExp(`^${field} must be `));
    expect(upstream.seen.length).toBe(before);
  });
});

describe('systems', () => {
  // Listing, reading, running and deleting: only ever the caller's own.
  it('lists, reads, runs and deletes the caller own systems', async () => {
    const created = await connect({ name: 'mine', url: `${upstream.base}/direct` });
    const id = created.json.id as string;

    const first = await get('/api/systems?limit=1');
    expect(first.json.systems).toHaveLength(1);
    expect(first.json.systems[0].id).toBe(id);
    expect(typeof first.json.cursor).toBe('string');
    const second = await get(`/api/systems?limit=1&cursor=${first.json.cursor}`);
    expect(second.json.systems[0].id).not.toBe(id);

    const read = await get(`/api/systems/${id}`);
    expect(read.json.structure).toEqual(WORKED);

    // The engine on the stored system answers exactly as on the structure sent inline.
    const byId = await post(server.url, server.apiKey, { mode: 'ticks', ticks: 3, systemId: id });
    const inline = await post(server.url, server.apiKey, { mode: 'ticks', ticks: 3, ...WORKED });
    expect(byId.status).toBe(200);
    expect(byId.text).toBe(inline.text);
    // The second run takes the compiled structure this instance kept: still the same bytes.
    const again = await post(server.url, server.apiKey, { mode: 'ticks', ticks: 3, systemId: id });
    expect(again.text).toBe(inline.text);

    // Bob sees nothing of it, and cannot tell it from a missing one.
    expect((await get(`/api/systems/${id}`, bob)).json.error.code).toBe('SYSTEM_NOT_FOUND');
    expect((await get('/api/systems', bob)).json.systems).toEqual([]);
    expect(
      (await post(server.url, bob, undefined, { path: `/api/systems/${id}`, method: 'DELETE' })).status,
    ).toBe(404);

    const deleted = await post(server.url, server.userToken, undefined, {
      path: `/api/systems/${id}`,
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    expect((await get(`/api/systems/${id}`)).status).toBe(404);
    // Deleted is gone, though this instance still holds its compiled structure.
    const gone = await post(server.url, server.apiKey, { mode: 'analyze', systemId: id });
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe('SYSTEM_NOT_FOUND');
  });

  // The request line says who made the service fetch and from which host (an operator's trail
  // when someone uses connect to knock on other people's ports), never the rest of the URL.
  it('logs the user and the host fetched from, not the path or query, on connect and refresh', async () => {
    const carol = signAccessToken(readLocalIssuer(server.issuerFile), { sub: 'carol' });
    const fetched = await captureOutput(() =>
      connect({ name: 'logged', url: `${upstream.base}/direct?marker=query-marker-1`, dryRun: true }, carol),
    );
    const refused = await captureOutput(() =>
      connect({ name: 'logged', url: 'http://example.com:22/path-marker-2', dryRun: true }, carol),
    );
    expect(refused.result.status).toBe(400);
    const lines = [...logLines(fetched.output), ...logLines(refused.output)].filter(
      (line) => line.route === 'POST /api/connect',
    );
    expect(lines).toEqual([
      // The fake API answers 404 to a path with a query: a fetch that failed is logged the same.
      expect.objectContaining({ status: 502, user: 'carol', fetchedHost: new URL(upstream.base).host }),
      expect.objectContaining({ status: 400, user: 'carol', fetchedHost: 'example.com:22' }),
    ]);
    expect(fetched.output + refused.output).not.toMatch(/query-marker-1|path-marker-2/);

    // A redirect to another host: the line names it too, so a search by the host that was
    // knocked on finds who sent the service there.
    const redirected = await captureOutput(() =>
      connect({ name: 'logged', url: `${upstream.base}/to-other-origin`, dryRun: true }, carol),
    );
    expect(redirected.result.status).toBe(200);
    expect(logLines(redirected.output)).toContainEqual(
      expect.objectContaining({
        route: 'POST /api/connect',
        fetchedHost: new URL(upstream.base).host,
        redirectedTo: [new URL(other.base).host],
      }),
    );

    // A refresh fetches the stored URL again: its line names the host too.
    const registered = await connect({ name: 'logged', url: `${upstream.base}/direct` }, carol);
    expect(registered.status).toBe(201);
    const refreshed = await captureOutput(() =>
      post(server.url, carol, {}, { path: `/api/systems/${registered.json.id}/refresh` }),
    );
    expect(refreshed.result.status).toBe(200);
    expect(logLines(refreshed.output)).toContainEqual(
      expect.objectContaining({
        route: 'POST /api/systems/{id}/refresh',
        user: 'carol',
        fetchedHost: new URL(upstream.base).host,
      }),
    );
  });

  // The external credential is used for the fetch and kept nowhere: not in a log line, not in a table item.
  it('keeps the external token out of the logs and the table', async () => {
    const { output } = await captureOutput(() =>
      connect({ name: 'secret', url: `${upstream.base}/direct`, auth: { token: EXTERNAL_TOKEN } }),
    );
    expect(output).toContain('"route":"POST /api/connect"');
    expect(output).not.toContain(EXTERNAL_TOKEN);
    const { client } = createDynamoClients({ endpoint: server.dynamoEndpoint });
    const { Items = [] } = await client.send(new ScanCommand({ TableName: server.tableName }));
    client.destroy();
    expect(Items.length).toBeGreaterThan(0);
    expect(JSON.stringify(Items)).not.toContain(EXTERNAL_TOKEN);
  });
});
