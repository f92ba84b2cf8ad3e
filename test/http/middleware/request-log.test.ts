import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api/errors';
import {
  errorResponse,
  type HttpContext,
  type HttpEvent,
  requestFacts,
  requestLog,
  responseEncoding,
} from '../../../lib/http/middleware';
import { type HttpResult, jsonTextResult } from '../../../lib/http/responses';
import { createLogger } from '../../../lib/logging';
import { captureOutput, httpEvent, logLines } from '../events';

const KEY = 'sbe_requestlogtestkeyrequestlogtestkey00';

/** A clock that advances 2.5 ms per reading, so the logged duration is exact. */
function steppingClock() {
  let now = 1000;
  return () => {
    now += 2.5;
    return now;
  };
}

function handlerWith(body: (event: HttpEvent, context: HttpContext) => HttpResult) {
  const logger = createLogger({ env: {} });
  return middy<HttpEvent, HttpResult, unknown, HttpContext>(body)
    .use(requestLog({ logger, now: steppingClock() }))
    .use(errorResponse({ logger }));
}

const event = () =>
  httpEvent({
    headers: { authorization: `Bearer ${KEY}`, cookie: 'session=abc' },
    body: '{"marker":"body-marker"}',
  });

describe('requestLog', () => {
  // A successful engine call: one line with route, status, the facts the handler recorded, and the duration.
  it('writes one line per successful request with the collected facts', async () => {
    const handler = handlerWith((_event, context) => {
      Object.assign(requestFacts({ context }), {
        keyId: 'k1',
        mode: 'analyze',
        nodeCount: 3,
        dependencyCount: 3,
      });
      return jsonTextResult(200, '{}');
    });
    const { output } = await captureOutput(() => handler(event() as never, {} as never));
    const lines = logLines(output);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      message: 'request',
      requestId: 'req-test-1',
      route: 'POST /api/engine',
      status: 200,
      keyId: 'k1',
      mode: 'analyze',
      nodeCount: 3,
      dependencyCount: 3,
      durationMs: 2.5,
    });
  });

  // A connect request: the user the token belongs to and the host it fetched from, nothing more of the URL.
  it('writes the user and the fetched host when a route recorded them', async () => {
    const handler = handlerWith((_event, context) => {
      Object.assign(requestFacts({ context }), { user: 'user-7', fetchedHost: 'api.example.com:8443' });
      return jsonTextResult(201, '{}');
    });
    const { output } = await captureOutput(() => handler(event() as never, {} as never));
    expect(logLines(output)[0]).toMatchObject({
      message: 'request',
      status: 201,
      user: 'user-7',
      fetchedHost: 'api.example.com:8443',
    });
  });

  // A refused request is logged too, once, with the status and code the caller received.
  it('writes one line for a failed request, after the error response is built', async () => {
    const handler = handlerWith(() => {
      throw new ApiError('INVALID_MODE', 'bad mode');
    });
    const { output, result } = await captureOutput(() => handler(event() as never, {} as never));
    expect(result.statusCode).toBe(400);
    const lines = logLines(output);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'request', status: 400, errorCode: 'INVALID_MODE' });
  });

  // Headers (the key, cookies) and the body never reach the log.
  // The log reports the encoding of what went out: a 413 that replaced a compressed body is
  // sent as plain JSON, so no contentEncoding; a compressed 200 reports its coding.
  it('logs the content encoding of the response actually sent', async () => {
    const logger = createLogger({ env: {} });
    const incompressible = JSON.stringify({
      noise: Array.from({ length: 6000 }, (_, i) => (i * 7919) % 1000003),
    });
    const handler = (body: string) =>
      middy<HttpEvent, HttpResult, unknown, HttpContext>(() => jsonTextResult(200, body))
        .use(requestLog({ logger, now: steppingClock() }))
        .use(errorResponse({ logger }))
        .use(responseEncoding({ maxBytes: 16 * 1024 }));
    const compressedEvent = () => httpEvent({ headers: { 'accept-encoding': 'br, gzip' } });

    const tooLarge = await captureOutput(() =>
      handler(incompressible)(compressedEvent() as never, {} as never),
    );
    expect(logLines(tooLarge.output)[0]).toMatchObject({ status: 413, errorCode: 'LIMIT_EXCEEDED' });
    expect(logLines(tooLarge.output)[0]).not.toHaveProperty('contentEncoding');

    const fits = await captureOutput(() =>
      handler('{"a":"'.concat('x'.repeat(5000), '"}'))(compressedEvent() as never, {} as never),
    );
    expect(logLines(fits.output)[0]).toMatchObject({ status: 200, contentEncoding: 'br' });
  });

  it('never logs headers or the body', async () => {
    const handler = handlerWith(() => jsonTextResult(200, '{}'));
    const { output } = await captureOutput(() => handler(event() as never, {} as never));
    expect(output).not.toContain(KEY);
    expect(output).not.toContain('session=abc');
    expect(output).not.toContain('body-marker');
  });
});

describe('logger redaction', () => {
  // Second line of defence: a secret-named attribute passed by mistake is blanked at any depth.
  it('blanks secret-named attributes', async () => {
    const logger = createLogger({ env: {} });
    const { output } = await captureOutput(async () =>
      logger.info('oops', {
        headers: { Authorization: `Bearer ${KEY}` },
        apiKey: KEY,
        nested: { token: 't0k' },
        mode: 'analyze',
      }),
    );
    expect(output).not.toContain(KEY);
    expect(output).not.toContain('t0k');
    expect(output).toContain('"apiKey":"[redacted]"');
    expect(output).toContain('"token":"[redacted]"');
    expect(output).toContain('"mode":"analyze"');
  });

  // LOG_LEVEL is read in any case; a typo fails at cold start instead of being ignored.
  it('reads LOG_LEVEL and refuses unknown levels', async () => {
    const quiet = createLogger({ env: { LOG_LEVEL: 'error' } });
    const { output } = await captureOutput(async () => quiet.info('hidden'));
    expect(output).toBe('');
    expect(() => createLogger({ env: { LOG_LEVEL: 'verbose' } })).toThrow(/LOG_LEVEL must be one of/);
  });
});
