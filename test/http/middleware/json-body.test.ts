import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { type HttpContext, type HttpEvent, jsonBody } from '../../../lib/http/middleware';
import { apiErrorOf, httpEvent } from '../events';

/** A handler that returns the body as the middleware left it. */
function parse(event: ReturnType<typeof httpEvent>, maxBytes = 100) {
  const handler = middy<HttpEvent, unknown, unknown, HttpContext>((parsed: HttpEvent) => parsed.body).use(
    jsonBody({ maxBytes, maxDecodedBytes: 1000 }),
  );
  return handler(event as never, {} as never);
}

describe('jsonBody', () => {
  // The common case: a JSON text body becomes the parsed value.
  it('replaces a JSON text body with its value', async () => {
    await expect(parse(httpEvent({ body: '{"mode":"analyze","n":[1,2]}' }))).resolves.toEqual({
      mode: 'analyze',
      n: [1, 2],
    });
  });

  // curl -d without a Content-Type reaches Lambda base64-encoded; it must work the same.
  it('decodes a base64 body first', async () => {
    const body = Buffer.from('{"mode":"tick"}').toString('base64');
    await expect(parse(httpEvent({ body, isBase64Encoded: true }))).resolves.toEqual({ mode: 'tick' });
  });

  // A byte order mark from a Windows editor is not worth refusing a request over.
  it('ignores a leading byte order mark', async () => {
    await expect(parse(httpEvent({ body: '\uFEFF{"a":1}' }))).resolves.toEqual({ a: 1 });
    const base64 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]).toString(
      'base64',
    );
    await expect(parse(httpEvent({ body: base64, isBase64Encoded: true }))).resolves.toEqual({ a: 1 });
  });

  // "é" is one character but two bytes: 60 of them are 120 bytes, over a 100-byte limit.
  it('measures the limit in bytes, not characters', async () => {
    const body = `"${'é'.repeat(60)}"`;
    expect(body.length).toBeLessThan(100);
    const error = await apiErrorOf(parse(httpEvent({ body })));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.status).toBe(413);
    expect(error.message).toContain('100 bytes');
  });

  // Exactly at the limit is allowed; one byte more is not.
  it('accepts a body of exactly maxBytes and refuses one byte more', async () => {
    const atLimit = `"${'x'.repeat(98)}"`;
    await expect(parse(httpEvent({ body: atLimit }))).resolves.toBe('x'.repeat(98));
    const error = await apiErrorOf(parse(httpEvent({ body: `"${'x'.repeat(99)}"` })));
    expect(error.code).toBe('LIMIT_EXCEEDED');
  });

  // A base64 body is measured after decoding: 90 bytes are 120 base64 characters and still fit.
  it('measures a base64 body by its decoded size', async () => {
    const body = Buffer.from(`"${'x'.repeat(88)}"`).toString('base64');
    expect(body.length).toBeGreaterThan(100);
    await expect(parse(httpEvent({ body, isBase64Encoded: true }))).resolves.toBe('x'.repeat(88));
  });

  // The size check comes before the syntax check (contract order 3 before 4).
  it('reports an oversized body as 413 even when it is not JSON either', async () => {
    const error = await apiErrorOf(parse(httpEvent({ body: '{'.repeat(200) })));
    expect(error.code).toBe('LIMIT_EXCEEDED');
  });

  // A broken body is located by line and column; none of the body (here a pasted secret) is repeated.
  it('answers broken JSON with PAYLOAD_ERROR naming line and column, without echoing the body', async () => {
    const body = '{\n  "mode": "analyze",\n  "token": "hunter2-secret" oops\n}';
    const error = await apiErrorOf(parse(httpEvent({ body }), 1000));
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.status).toBe(500);
    expect(error.message).toBe(
      "The request body is not valid JSON: expected ',' or '}' at line 3, column 29.",
    );
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('oops');
  });

  // No body at all is "not a JSON object" (contract check 4), with an example of what to send.
  it.each([undefined, ''])('answers a missing body (%j) with PAYLOAD_ERROR', async (body) => {
    const error = await apiErrorOf(parse(httpEvent({ body })));
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toContain('empty');
  });

  // Bytes that are not UTF-8 cannot be JSON text.
  it('answers a body that is not UTF-8 with PAYLOAD_ERROR', async () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64');
    const error = await apiErrorOf(parse(httpEvent({ body, isBase64Encoded: true })));
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toContain('UTF-8');
  });
});
