import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logging';
import { ClientGoneError, PoolFullError } from '../../local/handler-pool';
import { createHttpAdapter, type HttpApiHandler, type LoadedRoute } from '../../local/http-adapter';
import { captureOutput, logLines } from '../http/events';

interface ErrorBody {
  error: { code: string; message: string };
}

describe('createHttpAdapter over real HTTP', () => {
  let server: Server;
  let base: string;
  const seen: APIGatewayProxyEventV2[] = [];

  const echo: HttpApiHandler = async (received) => {
    seen.push(received);
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      cookies: ['seen=1', 'again=2'],
      body: JSON.stringify({
        length: Buffer.from(received.body ?? '', received.isBase64Encoded ? 'base64' : 'utf8').length,
      }),
    };
  };
  const loaded: LoadedRoute[] = [
    {
      method: 'POST',
      path: '/api/engine',
      name: 'engine',
      function: 'engine',
      auth: 'apiKey',
      handler: echo,
    },
    {
      method: 'GET',
      path: '/api/systems/{id}',
      name: 'system',
      function: 'engine',
      auth: 'userToken',
      handler: async (e) => e.pathParameters,
    },
    {
      method: 'GET',
      path: '/api/boom',
      name: 'boom',
      function: 'engine',
      auth: 'none',
      handler: async () => {
        throw new Error('kaput');
      },
    },
    {
      method: 'GET',
      path: '/api/busy',
      name: 'busy',
      function: 'engine',
      auth: 'none',
      handler: async () => {
        throw new PoolFullError(256);
      },
    },
    // As the pool does: a request still waiting when its client goes is taken back, never run.
    {
      method: 'GET',
      path: '/api/queued',
      name: 'queued',
      function: 'engine',
      auth: 'none',
      handler: (_event, _context, signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new ClientGoneError()), { once: true }),
        ),
    },
    // A worker that ends under a request whose client has already gone.
    {
      method: 'GET',
      path: '/api/ended',
      name: 'ended',
      function: 'engine',
      auth: 'none',
      handler: (_event, _context, signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('worker ended')), { once: true }),
        ),
    },
  ];
  const failures: string[] = [];

  beforeAll(async () => {
    server = createServer(
      createHttpAdapter({
        routes: loaded,
        maxBodyBytes: 1000,
        onHandlerError: (error) => failures.push(String(error)),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // An unknown path is answered by the "gateway" with the contract's JSON error, no handler runs.
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const response = await fetch(`${base}/api/nope`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.message).toContain('POST /api/engine');
  });

  // A known path with the wrong method: 405 with an Allow header.
  it('answers a wrong method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const response = await fetch(`${base}/api/engine`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(((await response.json()) as ErrorBody).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  // Cookies set by the function arrive as separate Set-Cookie headers; path parameters reach it.
  it('maps results to real HTTP responses', async () => {
    const response = await fetch(`${base}/api/engine`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { cookie: 'c=1' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual(['seen=1', 'again=2']);
    expect(await response.json()).toEqual({ length: 7 });
    expect(seen.at(-1)?.cookies).toEqual(['c=1']);
    const parameters = await fetch(`${base}/api/systems/abc`).then((r) => r.json());
    expect(parameters).toEqual({ id: 'abc' });
  });

  // A 1 MB upload against a 1000-byte limit: the function sees limit + 1 bytes, enough to answer 413.
  it('keeps at most maxBodyBytes + 1 bytes of a large upload', async () => {
    const response = await fetch(`${base}/api/engine`, { method: 'POST', body: 'x'.repeat(1_000_000) });
    expect(await response.json()).toEqual({ length: 1001 });
  });

  // A function that throws is a 500 in our error format, and the server keeps serving.
  it('answers a throwing handler with 500 INTERNAL_ERROR', async () => {
    const response = await fetch(`${base}/api/boom`);
    expect(response.status).toBe(500);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('kaput');
    expect(failures.at(-1)).toContain('kaput');
    expect((await fetch(`${base}/api/systems/x`)).status).toBe(200);
  });

  // Every engine worker busy and the pool's queue full: refused at once, as Lambda refuses an
  // invocation past its concurrency, with when to try again; no failure logged.
  it('answers a full pool with 503 SERVICE_UNAVAILABLE and Retry-After', async () => {
    const logged = failures.length;
    const response = await fetch(`${base}/api/busy`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(((await response.json()) as ErrorBody).error).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message:
        'Every engine worker of the local server is busy and 256 requests already wait; try again in 2 seconds.',
    });
    expect(failures).toHaveLength(logged);
  });

  // No handler ran the request (the pool was full) or its worker ended: the adapter writes the
  // request's log line itself, as every answered request has one.
  it('writes the request line of a refusal no handler logged', async () => {
    const logged = createServer(
      createHttpAdapter({
        routes: loaded,
        maxBodyBytes: 1000,
        logger: createLogger({ env: { LOG_LEVEL: 'INFO' } }),
        onHandlerError: () => undefined,
      }),
    );
    await new Promise<void>((resolve) => logged.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(logged.address() as AddressInfo).port}`;
    try {
      const { output } = await captureOutput(async () => {
        expect((await fetch(`${at}/api/busy`)).status).toBe(503);
        expect((await fetch(`${at}/api/boom`)).status).toBe(500);
      });
      expect(
        logLines(output)
          .filter((line) => line.message === 'request')
          .map(({ route, status, errorCode }) => ({ route, status, errorCode })),
      ).toEqual([
        { route: 'GET /api/busy', status: 503, errorCode: 'SERVICE_UNAVAILABLE' },
        { route: 'GET /api/boom', status: 500, errorCode: 'INTERNAL_ERROR' },
      ]);

      // A client that gives up while its request waits: the request is dropped unanswered, and
      // its line says so (499, client closed request). One whose worker then ends is a 500.
      const gone = await captureOutput(async () => {
        for (const path of ['/api/queued', '/api/ended']) {
          const controller = new AbortController();
          const call = fetch(`${at}${path}`, { signal: controller.signal }).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 50));
          controller.abort();
          await call;
        }
        // The lines are written as the server sees the connection close.
        await new Promise((resolve) => setTimeout(resolve, 200));
      });
      expect(
        logLines(gone.output)
          .filter((line) => line.message === 'request')
          .map(({ route, status, errorCode }) => ({ route, status, errorCode })),
      ).toEqual([
        { route: 'GET /api/queued', status: 499, errorCode: undefined },
        { route: 'GET /api/ended', status: 500, errorCode: 'INTERNAL_ERROR' },
      ]);
    } finally {
      await new Promise((resolve) => logged.close(resolve));
    }
  });
});
