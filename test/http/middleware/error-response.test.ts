import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  classifyFailure,
  EngineFailure,
  outOfTime,
  serviceUnavailable,
} from '../../../lib/api/errors';
import { errorResponse, type HttpContext, type HttpEvent } from '../../../lib/http/middleware';
import type { HttpResult } from '../../../lib/http/responses';
import { createLogger } from '../../../lib/logging';
import { isStoreUnavailable } from '../../../lib/storage/faults';
import { captureOutput, httpEvent, logLines } from '../events';

/** A handler that throws `thrown`, behind the error middleware; returns the result and what was logged. */
async function answer(thrown: unknown) {
  const handler = middy<HttpEvent, HttpResult, unknown, HttpContext>(() => {
    throw thrown;
  }).use(errorResponse({ logger: createLogger({ env: {} }) }));
  const { result, output } = await captureOutput(() => handler(httpEvent() as never, {} as never));
  return { result, body: JSON.parse(result.body), logs: logLines(output) };
}

describe('errorResponse', () => {
  // A deliberate error goes out with its status, code, message, details and headers; nothing is logged.
  it('turns an ApiError into its JSON error response', async () => {
    const { result, body, logs } = await answer(
      new ApiError('INVALID_MODE', 'mode is missing', {
        details: [{ path: 'mode', message: 'required' }],
        headers: { 'x-hint': 'h' },
      }),
    );
    expect(result.statusCode).toBe(400);
    expect(result.headers).toEqual({ 'x-hint': 'h', 'content-type': 'application/json; charset=utf-8' });
    expect(body).toEqual({
      error: {
        code: 'INVALID_MODE',
        message: 'mode is missing',
        details: [{ path: 'mode', message: 'required' }],
      },
    });
    expect(logs).toEqual([]);
  });

  // An error without details has no "details" key at all.
  it('omits details when there are none', async () => {
    const { body } = await answer(new ApiError('INVALID_TICKS', 'ticks must be 1..1000'));
    expect(body).toEqual({ error: { code: 'INVALID_TICKS', message: 'ticks must be 1..1000' } });
  });

  // The engine crashed: the caller gets a generic ENGINE_ERROR, the log gets the cause and the request id.
  it('answers an EngineFailure with a generic 500 ENGINE_ERROR and logs its cause', async () => {
    const cause = new TypeError('cannot read properties of undefined (reading "x") at node secret-node');
    const { result, body, logs } = await answer(new EngineFailure(cause));
    expect(result.statusCode).toBe(500);
    expect(body.error.code).toBe('ENGINE_ERROR');
    expect(result.body).not.toContain('secret-node');
    expect(result.body).not.toContain('TypeError');
    expect(result.body).not.toMatch(/\bat\s+\S+\s+\(/);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: 'ERROR', message: 'engine failure', requestId: 'req-test-1' });
    expect(JSON.stringify(logs[0])).toContain('secret-node');
  });

  // The function's time ran out (middy answers just before Lambda would stop it): 503 saying so,
  // never the storage's "busy or unreachable", which the SDK's error of the same name reads as,
  // and never a 500 that alarms count.
  it('answers the end of the function time with 503 naming the time limit', async () => {
    const handler = middy<HttpEvent, HttpResult, unknown, HttpContext>(
      () => new Promise<HttpResult>(() => {}),
    ).use(errorResponse({ logger: createLogger({ env: {} }), isUnavailable: isStoreUnavailable }));
    const context = { getRemainingTimeInMillis: () => 50 };
    const { result, output } = await captureOutput(() => handler(httpEvent() as never, context as never));
    expect(logLines(output)).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'function out of time' }),
    ]);
    expect(result.statusCode).toBe(503);
    expect(result.headers).toMatchObject({ 'retry-after': '2' });
    expect(JSON.parse(result.body).error).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: "The request did not finish within the service's time limit; try again in 2 seconds.",
    });
    // The SDK's own timeout is still the storage's.
    const sdkTimeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    expect(classifyFailure(sdkTimeout, isStoreUnavailable).error.message).toMatch(/storage is busy/);
    // A use case that saw its time would not cover a write says the same, and is logged the same.
    expect(classifyFailure(outOfTime(), isStoreUnavailable)).toMatchObject({ outOfTime: true });
    expect(classifyFailure(serviceUnavailable(), isStoreUnavailable).outOfTime).toBeUndefined();
  });

  // Anything else (a bug, an outage) is an INTERNAL_ERROR with a generic message.
  it('answers any other error with a generic 500 INTERNAL_ERROR', async () => {
    const { result, body, logs } = await answer(new Error('connect ECONNREFUSED 10.0.0.7:443'));
    expect(result.statusCode).toBe(500);
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(typeof body.error.message).toBe('string');
    expect(result.body).not.toContain('ECONNREFUSED');
    expect(logs[0]).toMatchObject({ level: 'ERROR', message: 'unexpected failure', requestId: 'req-test-1' });
  });

  // Even a thrown string (not an Error) is answered, not crashed on.
  it('copes with a thrown non-Error', async () => {
    const { result, body } = await answer('just a string');
    expect(result.statusCode).toBe(500);
    expect(body.error.code).toBe('INTERNAL_ERROR');
  });
});
