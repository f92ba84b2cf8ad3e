import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;
let port: number;

// Short timeouts so stalled requests can be observed; a 64 KiB body limit; CORS for one origin.
beforeAll(async () => {
  server = await startTestServer({
    MAX_BODY_BYTES: '65536',
    REQUEST_TIMEOUT_MS: '1500',
    HEADERS_TIMEOUT_MS: '1000',
    CORS_ALLOW_ORIGINS: 'https://app.example.com',
    LOG_LEVEL: 'WARN',
  });
  port = Number(new URL(server.url).port);
});

afterAll(() => server.close());

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * Writes `request` on a fresh TCP connection and resolves with the first response, without
 * ever ending the request: the server must answer from what it has.
 */
function exchange(request: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer'));
    }, timeoutMs);
    const finish = () => {
      const text = received.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return false;
      const head = text.slice(0, split);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      const body = received.subarray(split + 4);
      if (body.length < length) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: body.toString('utf8') });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!finish()) {
        clearTimeout(timer);
        reject(new Error(`closed without an answer: ${received.toString('latin1').slice(0, 200)}`));
      }
    });
    socket.write(request);
  });
}

describe('the local server at the edges of HTTP', () => {
  // A 200 MB upload without a key: the server answers 401 from the first 64 KiB + 1 byte it
  // keeps, without waiting for the rest (which this client never even sends).
  it('answers 401 before reading an oversized body in full', async () => {
    const head =
      'POST /api/engine HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
      `content-length: ${200 * 1024 * 1024}\r\n\r\n`;
    const answer = await exchange(Buffer.concat([Buffer.from(head), Buffer.alloc(100_000, 0x20)]));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.code).toBe('MISSING_API_KEY');
    expect(answer.head).toContain('connection: close');
  });

  // With a key, the same upload gets 413 after the key check, again without the rest.
  it('answers 413 for an oversized body with a valid key, without waiting for the rest', async () => {
    const head =
      'POST /api/engine HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
      `authorization: Bearer ${server.apiKey}\r\ncontent-length: ${200 * 1024 * 1024}\r\n\r\n`;
    const answer = await exchange(Buffer.concat([Buffer.from(head), Buffer.alloc(100_000, 0x20)]));
    expect(answer.status).toBe(413);
  });

  // A body that stops arriving is answered 408 with the JSON error body once the request
  // timeout (1.5 s here, 30 s by default) has passed, not after Node's five minutes.
  it('answers a stalled body with 408 REQUEST_TIMEOUT in JSON', async () => {
    const head =
      'POST /api/engine HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n' +
      `authorization: Bearer ${server.apiKey}\r\ncontent-length: 1000\r\n\r\n{"mode":`;
    const answer = await exchange(head, 8000);
    expect(answer.status).toBe(408);
    expect(answer.head).toContain('content-type: application/json; charset=utf-8');
    expect(JSON.parse(answer.body).error.code).toBe('REQUEST_TIMEOUT');
  });

  // Errors Node's parser raises get the same JSON error body as every other error.
  it('answers oversized headers with 431 and bad header bytes with 400, both in JSON', async () => {
    const huge = await exchange(
      `GET /api/openapi.json HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body).error.code).toBe('HEADERS_TOO_LARGE');
    const bad = await exchange('GET /api/openapi.json HTTP/1.1\r\nhost: x\r\nbad header: 1\r\n\r\n');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('BAD_REQUEST');
    expect(bad.head).toContain('x-content-type-options: nosniff');
  });
});

describe('response headers', () => {
  // JSON is never sniffed as anything else and answers are per caller: nothing caches them.
  it('sends nosniff and no-store on successes, errors and the gateway answers', async () => {
    const ok = await post(server.url, server.apiKey, { mode: 'analyze', ...WORKED });
    const error = await post(server.url, server.apiKey, { mode: 'nope', ...WORKED });
    const missing = await post(server.url, server.apiKey, {}, { path: '/api/nope' });
    for (const answer of [ok, error, missing]) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    const openapi = await fetch(`${server.url}/api/openapi.json`);
    expect(openapi.headers.get('x-content-type-options')).toBe('nosniff');
    expect(openapi.headers.get('cache-control')).toBe('public, max-age=300');
  });

  // HEAD is served wherever GET is: same status and headers, no body.
  it('answers HEAD /api/openapi.json like GET, without a body', async () => {
    const get = await fetch(`${server.url}/api/openapi.json`);
    const head = await fetch(`${server.url}/api/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
    const engine = await fetch(`${server.url}/api/engine`, { method: 'HEAD' });
    expect(engine.status).toBe(405);
  });
});

describe('CORS (CORS_ALLOW_ORIGINS=https://app.example.com here)', () => {
  const preflight = (origin: string) =>
    fetch(`${server.url}/api/engine`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  // The browser asks first; an allowed origin learns what it may send.
  it('answers a preflight from an allowed origin with the allowed methods and headers', async () => {
    const answer = await preflight('https://app.example.com');
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST');
    expect(answer.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, content-encoding, if-match, if-none-match',
    );
    expect(answer.headers.get('access-control-max-age')).toBe('600');
    // Once: it read "Origin, Origin".
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  // The OpenAPI document is cached by anyone for five minutes: a copy made for a request without
  // an Origin (no CORS header) must not be served to the allowed page, so it varies by Origin
  // whatever the request held.
  it('varies every answer by Origin, the cacheable OpenAPI document asked without one included', async () => {
    const asked: Record<string, string>[] = [
      {},
      { origin: 'https://evil.example.com' },
      { origin: 'https://app.example.com' },
    ];
    for (const headers of asked) {
      const answer = await fetch(`${server.url}/api/openapi.json`, { headers });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
      expect(answer.headers.get('vary')).toBe('Origin, Accept-Encoding');
    }
  });

  // Another origin gets no CORS headers: its browser refuses the real request.
  it('gives another origin no CORS headers', async () => {
    const answer = await preflight('https://evil.example.com');
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    const real = await post(
      server.url,
      server.apiKey,
      { mode: 'analyze', ...WORKED },
      {
        headers: { origin: 'https://evil.example.com' },
      },
    );
    expect(real.headers.get('access-control-allow-origin')).toBeNull();
  });

  // The real request from the allowed origin carries the origin back, success or error.
  it('adds Access-Control-Allow-Origin to the real responses', async () => {
    const headers = { origin: 'https://app.example.com' };
    const ok = await post(server.url, server.apiKey, { mode: 'analyze', ...WORKED }, { headers });
    const denied = await post(server.url, null, { mode: 'analyze', ...WORKED }, { headers });
    for (const answer of [ok, denied]) {
      expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(answer.headers.get('vary')).toContain('Origin');
      // So a page can read when to retry a 503 and which credential a 401 wants.
      expect(answer.headers.get('access-control-expose-headers')).toBe(
        'retry-after, www-authenticate, allow, etag',
      );
    }
  });
});
