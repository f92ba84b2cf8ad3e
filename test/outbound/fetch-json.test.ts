import { createServer as createNetServer } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type AllowedHosts, readConnectAllowHosts } from '../../lib/outbound/allow-hosts';
import { readConnectDeadlineMs } from '../../lib/outbound/deadline';
import { OutboundError } from '../../lib/outbound/errors';
import { type FetchJsonOptions, fetchJson } from '../../lib/outbound/fetch-json';
import type { ResolveHost } from '../../lib/outbound/guarded-lookup';
import { type FakeApi, type FakeHandler, reply, startFakeApi } from './fake-api';

const GRAPH = { nodes: [{ id: 'A' }, { id: 'B' }], dependencies: [{ from: 'A', to: 'B' }] };
const GRAPH_TEXT = JSON.stringify(GRAPH);
const TOKEN = 'tok-3f9a1c77e2b04d5e';
/** The test's allowlist: the fake API's loopback address, and nothing else. */
const LOOPBACK_ONLY = readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: '127.0.0.1' });

/** Answers every name with loopback only, so no test can reach a real host. */
const loopbackResolver: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];

const servers: FakeApi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: FakeHandler): Promise<FakeApi> {
  const api = await startFakeApi(handler);
  servers.push(api);
  return api;
}

function fetchFrom(url: string, options: FetchJsonOptions = {}) {
  return fetchJson(url, { allowHosts: LOOPBACK_ONLY, resolveHost: loopbackResolver, ...options });
}

async function failureOf(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => {
      throw new Error('expected an OutboundError');
    },
    (e: unknown) => e,
  );
  if (error instanceof OutboundError) return error;
  throw error;
}

describe('successful fetches', () => {
  // The plain case: an API answers JSON; the caller gets the parsed body and the URL that answered.
  it('returns the parsed body and the final URL', async () => {
    const api = await serve(reply(GRAPH_TEXT));
    const result = await fetchFrom(`${api.origin}/graph?team=a#top`);
    expect(result).toEqual({ url: `${api.origin}/graph?team=a`, body: GRAPH });
    expect(api.requests[0]!.headers).toMatchObject({
      accept: 'application/json',
      'accept-encoding': 'gzip, br',
      'user-agent': 'system-behavior-engine',
    });
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
  });

  // Vendor JSON types with parameters count as JSON.
  it('accepts application/*+json with a charset', async () => {
    const api = await serve(reply(GRAPH_TEXT, { 'content-type': 'application/vnd.x+json; charset=utf-8' }));
    expect((await fetchFrom(api.origin)).body).toEqual(GRAPH);
  });

  // Servers that compress their answer, as Accept-Encoding invited them to.
  it.each<[string, (bytes: Buffer) => Buffer]>([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ])('decodes a %s-encoded body', async (coding, compress) => {
    const api = await serve(reply(compress(Buffer.from(GRAPH_TEXT)), { 'content-encoding': coding }));
    expect((await fetchFrom(api.origin)).body).toEqual(GRAPH);
  });

  // The bearer token reaches the API it was given for.
  it('sends the token as a bearer token', async () => {
    const api = await serve(reply(GRAPH_TEXT));
    await fetchFrom(api.origin, { token: TOKEN });
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  // An allowlisted host name is resolved (here by the injected resolver) and connected to.
  it('connects to an allowlisted name through the resolver', async () => {
    const api = await serve(reply(GRAPH_TEXT));
    const allowHosts = readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: 'api.test' });
    const result = await fetchJson(`http://api.test:${api.port}/graph`, {
      allowHosts,
      resolveHost: loopbackResolver,
    });
    expect(result.body).toEqual(GRAPH);
    expect(api.requests[0]!.headers.host).toBe(`api.test:${api.port}`);
  });

  // The default resolver is the system one: `localhost`, when allowlisted, is found through it.
  it('uses the system resolver by default', async () => {
    const api = await serve(reply(GRAPH_TEXT));
    const allowHosts = readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: 'localhost' });
    expect((await fetchJson(`http://localhost:${api.port}/`, { allowHosts })).body).toEqual(GRAPH);
  });
});

describe('hostile URLs over HTTP', () => {
  const NOT_MATCHING: AllowedHosts = readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: 'api.test' });

  // Loopback spellings pointing at a live server: refused from the URL, the server sees nothing.
  it.each(['localhost', '[::1]', '127.1', '2130706433', '0.0.0.0'])(
    'refuses http://%s:<port>/',
    async (host) => {
      const api = await serve(reply(GRAPH_TEXT));
      const error = await failureOf(fetchJson(`http://${host}:${api.port}/`, { allowHosts: NOT_MATCHING }));
      expect(error.code).toBe('URL_NOT_ALLOWED');
      // The caller's own URL: its host is named.
      expect(error.message).toMatch(/^The URL's host "/);
      expect(api.requests).toHaveLength(0);
    },
  );

  // A harmless-looking name that resolves to loopback is refused when the socket connects.
  it('refuses a name that resolves to loopback, at connect time', async () => {
    const api = await serve(reply(GRAPH_TEXT));
    const error = await failureOf(
      fetchJson(`http://innocent.example:${api.port}/`, {
        allowHosts: NOT_MATCHING,
        resolveHost: loopbackResolver,
      }),
    );
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toContain('resolves to a loopback address');
    expect(error.message).not.toContain('127.0.0.1');
    expect(api.requests).toHaveLength(0);
  });
});

describe('upstream errors', () => {
  // A server that answers 101 Switching Protocols: Node emits no response and no error for it,
  // so without care the call would hang past its deadline (found by a security review).
  // Before the fix this never settled, so the test timed out.
  it('reports a 101 answer as UPSTREAM_ERROR', async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () =>
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: foo\r\nConnection: Upgrade\r\n\r\n'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const error = await failureOf(fetchFrom(`http://127.0.0.1:${port}/graph`, { deadlineMs: 2000 }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.message).toBe('The server switched protocols instead of answering with JSON.');
    } finally {
      server.close();
    }
  });

  // A missing resource and a crashed server are both the upstream's failure, named by status.
  it.each([
    [404, '404 Not Found'],
    [500, '500 Internal Server Error'],
  ])('reports status %i as UPSTREAM_ERROR', async (status, words) => {
    const api = await serve(reply('{"error":"nope"}', {}, status));
    const error = await failureOf(fetchFrom(`${api.origin}/graph`));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe(`The server at "127.0.0.1:${api.port}" answered ${words}.`);
  });

  // A server that never answers is given up on at the deadline; closing it cuts the held connection.
  it('gives up on a server that never answers', async () => {
    const api = await serve(() => {});
    const error = await failureOf(fetchFrom(api.origin, { deadlineMs: 300 }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('did not send a complete answer within 300 ms');
  });

  // The deadline covers the body too: headers arrive, then the body stalls half-way.
  it('gives up on a body that stalls', async () => {
    const api = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"nodes":[');
    });
    const error = await failureOf(fetchFrom(api.origin, { deadlineMs: 300 }));
    expect(error.message).toContain('within 300 ms');
  });

  // Nothing listens on the port any more: the connection is refused.
  it('reports a refused connection', async () => {
    const api = await serve(reply(GRAPH_TEXT));
    await api.close();
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe(
      `Could not get an answer from the server at "127.0.0.1:${api.port}": the connection was refused (ECONNREFUSED).`,
    );
  });

  // A name that does not exist, has no address, or whose DNS server did not answer in time.
  it.each(['ENOTFOUND', 'EAI_NODATA', 'EAI_AGAIN'])(
    'reports a name that does not resolve (%s)',
    async (code) => {
      const error = await failureOf(
        fetchJson('https://no-such-host.example/graph', { resolveHost: failingWith(code) }),
      );
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.message).toBe(
        `The host name of the server at "no-such-host.example" could not be resolved (${code}).`,
      );
    },
  );

  // The network failures people meet most are put in words; the resolver injects them here, as
  // only a refused connection and a reset can be made on loopback.
  it.each([
    ['ECONNRESET', 'the connection was reset (ECONNRESET)'],
    ['EHOSTUNREACH', 'the host is unreachable (EHOSTUNREACH)'],
    ['ENETUNREACH', 'the network is unreachable (ENETUNREACH)'],
    ['ETIMEDOUT', 'connecting timed out (ETIMEDOUT)'],
    // Any other code (TLS ones included) is shown as it is.
    ['CERT_HAS_EXPIRED', 'CERT_HAS_EXPIRED'],
  ])('describes %s', async (code, words) => {
    const error = await failureOf(fetchJson('https://api.example.com/', { resolveHost: failingWith(code) }));
    expect(error.message).toBe(`Could not get an answer from the server at "api.example.com": ${words}.`);
  });

  // A code that is not one (missing, or not an upper-case word) is not repeated: it may come
  // from somewhere that echoes what the server sent.
  it.each([undefined, 42, 'eCONNRESET', 'ECONNRESET<b>', 'E CONN'])(
    'does not repeat the code %j',
    async (code) => {
      const error = await failureOf(
        fetchJson('https://api.example.com/', { resolveHost: failingWith(code) }),
      );
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.message).toBe('Could not get an answer from the server at "api.example.com".');
    },
  );

  // A server that resets the connection instead of answering: a real reset over loopback.
  it('reports a reset connection', async () => {
    const api = await serve((request) => request.socket.destroy());
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.message).toBe(
      `Could not get an answer from the server at "127.0.0.1:${api.port}": the connection was reset (ECONNRESET).`,
    );
  });

  // Statuses without a name are given by number; one below 200 (not informational, which Node
  // handles itself) is not a success either.
  it.each([
    [599, 'HTTP status 599'],
    [299, undefined],
    [300, '300 Multiple Choices'],
  ])('treats status %i as %s', async (status, words) => {
    const api = await serve(reply(GRAPH_TEXT, {}, status));
    const result = fetchFrom(api.origin);
    if (words === undefined) {
      // 299 is the last success status.
      expect((await result).body).toEqual(GRAPH);
    } else {
      expect((await failureOf(result)).message).toBe(
        `The server at "127.0.0.1:${api.port}" answered ${words}.`,
      );
    }
  });

  it('reports a status below 200 as UPSTREAM_ERROR', async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () =>
        socket.end(
          `HTTP/1.1 099 Odd\r\ncontent-type: application/json\r\ncontent-length: ${GRAPH_TEXT.length}\r\n\r\n${GRAPH_TEXT}`,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const error = await failureOf(fetchFrom(`http://127.0.0.1:${port}/graph`));
      expect(error.message).toBe(`The server at "127.0.0.1:${port}" answered HTTP status 99.`);
    } finally {
      server.close();
    }
  });

  // An answer refused by its headers is not left open: the connection is closed at once, not
  // when the server gives up on it.
  it('closes the connection of an answer it refuses', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const api = await serve((request, response) => {
      request.socket.on('close', closed);
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<html>');
    });
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_INVALID');
    const outcome = await Promise.race([
      connectionClosed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 5000, 'still open')),
    ]);
    expect(outcome).toBe('closed');
  });
});

/** A resolver that fails as the system's does, with this `code` on the error. */
function failingWith(code: unknown): ResolveHost {
  return async () => {
    throw Object.assign(new Error('resolver failure'), { code });
  };
}

describe('CONNECT_DEADLINE_MS', () => {
  // 10 s by default; 100 ms to 15 s, which leaves the connect function time to store the answer.
  it('reads the deadline within its bounds', () => {
    expect(readConnectDeadlineMs({})).toBe(10_000);
    expect(readConnectDeadlineMs({ CONNECT_DEADLINE_MS: '100' })).toBe(100);
    expect(readConnectDeadlineMs({ CONNECT_DEADLINE_MS: '15000' })).toBe(15_000);
    expect(() => readConnectDeadlineMs({ CONNECT_DEADLINE_MS: '99' })).toThrow('CONNECT_DEADLINE_MS');
    expect(() => readConnectDeadlineMs({ CONNECT_DEADLINE_MS: '15001' })).toThrow('CONNECT_DEADLINE_MS');
  });
});

describe('size cap', () => {
  // A declared length over the cap is refused before reading.
  it('refuses a body whose Content-Length is over the cap', async () => {
    const api = await serve(reply('x'.repeat(5000)));
    const error = await failureOf(fetchFrom(api.origin, { maxBodyBytes: 1000 }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('larger than the limit of 1000 bytes');
  });

  // An endless chunked body is cut off at the cap, not read until the deadline.
  it('stops reading an endless body at the cap', async () => {
    const api = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) {}
      };
      response.on('drain', pump);
      pump();
    });
    const error = await failureOf(fetchFrom(api.origin, { maxBodyBytes: 100_000 }));
    expect(error.message).toContain('larger than the limit of 100000 bytes');
  });

  // A gzip bomb: a small download that inflates to 32 MB stops at the default 6 MiB cap.
  it('stops a gzip bomb at the decoded cap', async () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(100_000);
    const api = await serve(reply(bomb, { 'content-encoding': 'gzip' }));
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain(`larger than the limit of ${6 * 1024 * 1024} bytes`);
  });

  // 300 KB on the wire that inflate to 300 MB, in one reply: the decoder holds a large inflated
  // chunk when the cap is passed, and the reading stayed pending past its deadline (the connect
  // function then ran to its own time limit and answered 503). It stops at the cap at once.
  it('stops a gzip bomb of 300 MB at the cap, well within the deadline', async () => {
    const bomb = gzipSync(Buffer.alloc(300 * 1024 * 1024, 0x20), { level: 9 });
    const api = await serve(reply(bomb, { 'content-encoding': 'gzip' }));
    for (const maxBodyBytes of [16 * 1024 * 1024, 64 * 1024 * 1024]) {
      const error = await failureOf(fetchFrom(api.origin, { maxBodyBytes, deadlineMs: 8_000 }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.message).toContain(`larger than the limit of ${maxBodyBytes} bytes`);
    }
  });
});

describe('answers that are not JSON', () => {
  // An HTML page (a login screen, an error page) instead of the API's JSON.
  it('refuses a non-JSON Content-Type', async () => {
    const api = await serve(reply('<html></html>', { 'content-type': 'text/html; charset=utf-8' }));
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toBe(
      `The response from the server at "127.0.0.1:${api.port}" has Content-Type text/html; ` +
        'the URL must answer with application/json.',
    );
  });

  // JSON promised, but the body is cut off.
  it('refuses broken JSON', async () => {
    const api = await serve(reply('{"nodes": [1, 2'));
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toContain('is not valid JSON');
  });

  // gzip promised, but the bytes are plain text.
  it('refuses a body that is not the coding it claims', async () => {
    const api = await serve(reply(GRAPH_TEXT, { 'content-encoding': 'gzip' }));
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toContain('not valid gzip data');
  });
});

describe('redirects', () => {
  /** Redirects `/hop/<n>` to `/hop/<n+1>` up to `hops` times, then answers the graph. */
  function redirecting(hops: number): FakeHandler {
    return (request, response) => {
      const n = Number(request.url?.split('/')[2] ?? 0);
      if (n >= hops) return reply(GRAPH_TEXT)(request, response);
      response.writeHead(302, { location: `/hop/${n + 1}` });
      response.end();
    };
  }

  // Three redirects are followed; the result names where they ended.
  it('follows up to 3 redirects', async () => {
    const api = await serve(redirecting(3));
    const result = await fetchFrom(`${api.origin}/hop/0`);
    expect(result).toEqual({ url: `${api.origin}/hop/3`, body: GRAPH });
  });

  // The request log's hook: told each URL just before it is requested, the first and each redirect's.
  it('tells onFetch every URL it requests, in order', async () => {
    const api = await serve(redirecting(2));
    const told: string[] = [];
    await fetchFrom(`${api.origin}/hop/0`, { onFetch: (url) => told.push(url) });
    expect(told).toEqual([0, 1, 2].map((n) => `${api.origin}/hop/${n}`));
  });

  // Told before each check: a refused URL, first or a redirect's, is in the request log too.
  it('tells onFetch a URL it refuses, the first or a redirect target', async () => {
    const told: string[] = [];
    await failureOf(fetchFrom('http://127.0.0.2:22/graph', { onFetch: (url) => told.push(url) }));
    expect(told).toEqual(['http://127.0.0.2:22/graph']);
    const api = await serve((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.2:${api.port}/` });
      response.end();
    });
    told.length = 0;
    await failureOf(fetchFrom(api.origin, { onFetch: (url) => told.push(url) }));
    expect(told).toEqual([api.origin, `http://127.0.0.2:${api.port}/`]);
    expect(api.requests).toHaveLength(1);
  });

  // The functions' X-Ray subsegment: one per fetch, redirects inside it, failures seen by it.
  it('runs the whole fetch, redirects included, inside the trace hook once', async () => {
    const api = await serve(redirecting(2));
    const traced: Array<{ url: string; outcome: string }> = [];
    const trace = async <T>(url: string, run: () => Promise<T>): Promise<T> => {
      try {
        const result = await run();
        traced.push({ url, outcome: 'ok' });
        return result;
      } catch (error) {
        traced.push({ url, outcome: (error as OutboundError).code });
        throw error;
      }
    };
    const result = await fetchFrom(`${api.origin}/hop/0`, { trace });
    expect(result.url).toBe(`${api.origin}/hop/2`);
    expect(api.requests).toHaveLength(3);
    expect(traced).toEqual([{ url: `${api.origin}/hop/0`, outcome: 'ok' }]);
    await failureOf(
      fetchFrom(`${api.origin}/hop/0`.replace('/hop/0', '/x').replace('http:', 'ftp:'), { trace }),
    );
    expect(traced[1]).toEqual({
      url: `${api.origin}/x`.replace('http:', 'ftp:'),
      outcome: 'URL_NOT_ALLOWED',
    });
  });

  // A fourth redirect is one too many.
  it('refuses more than 3 redirects', async () => {
    const api = await serve(redirecting(10));
    const error = await failureOf(fetchFrom(`${api.origin}/hop/0`));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('redirected more than 3 times');
    expect(api.requests).toHaveLength(4);
  });

  // A public-looking API that redirects into loopback: the target is checked like the first URL.
  it('refuses a redirect to a host that is not allowed, without connecting', async () => {
    const api = await serve((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.2:${api.port}/` });
      response.end();
    });
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toBe(
      'The URL the server redirected to points at a loopback address (this machine); only public addresses can be fetched.',
    );
    expect(api.requests).toHaveLength(1);
  });

  // Redirected to another origin (127.0.0.1 → localhost): the token stays behind.
  it('drops the token when a redirect changes origin', async () => {
    const api = await serve((request, response) => {
      if (request.url === '/data') return reply(GRAPH_TEXT)(request, response);
      response.writeHead(301, { location: `http://localhost:${api.port}/data` });
      response.end();
    });
    const allowHosts = readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: '127.0.0.1,localhost' });
    const result = await fetchFrom(`${api.origin}/start`, { allowHosts, token: TOKEN });
    expect(result.url).toBe(`http://localhost:${api.port}/data`);
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, undefined]);
  });

  // Redirected within the same origin: the token still goes along.
  it('keeps the token on a same-origin redirect', async () => {
    const api = await serve(redirecting(1));
    await fetchFrom(`${api.origin}/hop/0`, { token: TOKEN });
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  // A redirect that forgot its Location header, or sent it empty (not a redirect to itself).
  it.each([{}, { location: '' }])('reports a redirect without Location (%j)', async (headers) => {
    const api = await serve((_request, response) => {
      response.writeHead(302, headers);
      response.end();
    });
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe('The server answered with a redirect but no single Location to follow.');
    expect(api.requests).toHaveLength(1);
  });

  // A Location the URL parser cannot read.
  it('reports a redirect to a Location that is not a URL', async () => {
    const api = await serve((_request, response) => {
      response.writeHead(302, { location: 'http://[oops/' });
      response.end();
    });
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toBe('The server redirected to a Location that is not a valid URL.');
  });

  // After a redirect the answering server is not named: its host was written by the first server.
  it('does not name the server a redirect led to', async () => {
    const api = await serve((request, response) => {
      if (request.url === '/gone') return reply('{}', {}, 404)(request, response);
      response.writeHead(302, { location: '/gone' });
      response.end();
    });
    const error = await failureOf(fetchFrom(api.origin));
    expect(error.message).toBe('The server it redirected to answered 404 Not Found.');
  });
});

describe('the token stays secret', () => {
  // A hostile server echoes the token in every place it controls; no error repeats it.
  it.each<[string, FakeHandler]>([
    ['a Location host', (_q, s) => s.writeHead(302, { location: `http://${TOKEN}.example:8080/` }).end()],
    ['a Location scheme', (_q, s) => s.writeHead(302, { location: `x${TOKEN}://example.com/` }).end()],
    ['a localhost Location', (_q, s) => s.writeHead(302, { location: `http://${TOKEN}.localhost/` }).end()],
    ['the Content-Type', reply(GRAPH_TEXT, { 'content-type': `application/${TOKEN}` })],
    ['the body', reply(`not json ${TOKEN}`)],
    ['the status', reply(TOKEN, { 'content-type': 'text/plain' }, 418)],
    ['a stalled body', (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).write(TOKEN)],
  ])('keeps it out of errors caused by %s', async (_place, handler) => {
    const api = await serve(handler);
    const error = await failureOf(fetchFrom(api.origin, { token: TOKEN, deadlineMs: 300 }));
    const everything = JSON.stringify({ ...error, message: error.message, stack: error.stack });
    expect(everything.toLowerCase()).not.toContain(TOKEN.toLowerCase());
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  // A token that would break the header is the caller's bug, refused without repeating it.
  it('refuses a malformed token without repeating it', async () => {
    await expect(fetchFrom('http://127.0.0.1:9/', { token: `${TOKEN}\r\nx: y` })).rejects.toThrow(
      'The token must be non-empty printable ASCII without spaces.',
    );
  });
});
