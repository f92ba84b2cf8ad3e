import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { largestBinaryBody, responseFits, returnedBodyBytes } from '../../lib/api/response-size';
import { DEFAULT_LIMITS } from '../../lib/config/limits';

describe('returnedBodyBytes', () => {
  it('counts a text body as it appears inside the returned JSON, escapes included', () => {
    // `{"a":"b"}` is 9 characters, but inside the envelope each of its 4 quotes gets a backslash.
    expect(returnedBodyBytes('{"a":"b"}', false)).toBe(13);
    // Non-ASCII text is counted in UTF-8 bytes: "é" is 2 bytes.
    expect(returnedBodyBytes('é', false)).toBe(2);
    // A newline becomes `\n`, two bytes.
    expect(returnedBodyBytes('\n', false)).toBe(2);
  });

  it('counts a binary body as base64: 4 characters for every 3 bytes, rounded up', () => {
    expect(returnedBodyBytes(new Uint8Array(3), true)).toBe(4);
    expect(returnedBodyBytes(new Uint8Array(4), true)).toBe(8);
    expect(returnedBodyBytes(new Uint8Array(0), true)).toBe(0);
  });

  it('takes an already base64-encoded string as it is', () => {
    const encoded = Buffer.from('hello world').toString('base64');
    expect(returnedBodyBytes(encoded, true)).toBe(encoded.length);
  });

  it('agrees with what Lambda would really serialize', () => {
    // The envelope Lambda receives, minus the envelope: exactly the body's share.
    const body = JSON.stringify({ mode: 'analyze', engine: { nodes: [{ id: 'ünïcode "quoted"\\' }] } });
    const envelope = JSON.stringify({ statusCode: 200, body });
    const withoutBody = JSON.stringify({ statusCode: 200, body: '' });
    expect(returnedBodyBytes(body, false)).toBe(Buffer.byteLength(envelope) - Buffer.byteLength(withoutBody));
  });
});

describe('responseFits', () => {
  const limits = { maxResponseBytes: 64 * 1024 };
  // 8 KiB of the limit are kept for the status code and headers.
  const budget = 64 * 1024 - 8192;

  it('keeps a margin for the status code and headers', () => {
    expect(responseFits('x'.repeat(6_291_456 - 8192), false, DEFAULT_LIMITS)).toBe(true);
    expect(responseFits('x'.repeat(6_291_456 - 8191), false, DEFAULT_LIMITS)).toBe(false);
  });

  it('accepts a text body exactly at the budget and refuses one byte more', () => {
    expect(responseFits('x'.repeat(budget), false, limits)).toBe(true);
    expect(responseFits('x'.repeat(budget + 1), false, limits)).toBe(false);
  });

  it('refuses a text body that only goes over budget once its quotes are escaped', () => {
    // Each `"` costs two bytes in the envelope: 60% of the budget in quotes is 120% once escaped.
    const quotes = '"'.repeat(Math.floor(budget * 0.6));
    expect(Buffer.byteLength(quotes)).toBeLessThan(budget);
    expect(responseFits(quotes, false, limits)).toBe(false);
  });

  it('counts a compressed body after base64', () => {
    // 3/4 of the budget in raw bytes fits; one 3-byte group more does not.
    const largest = largestBinaryBody(limits);
    expect(returnedBodyBytes(new Uint8Array(largest), true)).toBeLessThanOrEqual(budget);
    expect(responseFits(new Uint8Array(largest), true, limits)).toBe(true);
    expect(responseFits(new Uint8Array(largest + 3), true, limits)).toBe(false);
  });

  it('lets compression rescue a repetitive body that is too large as text', () => {
    // A timeline repeats itself; gzip brings it under the limit where the text does not fit.
    const text = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ tick: i, load: 0, role: 'sink' })));
    expect(responseFits(text, false, limits)).toBe(false);
    expect(responseFits(gzipSync(text), true, limits)).toBe(true);
  });
});
