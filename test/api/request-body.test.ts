import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import { parseJsonRequestBody, type RequestBodyOptions } from '../../lib/api/request-body';
import { IDS_DIFFERING_IN_INVALID_BYTES } from '../http/events';

const BODY = { mode: 'analyze', nodes: [{ id: 'A', load: 1 }], dependencies: [] };
const TEXT = JSON.stringify(BODY);

/** How API Gateway hands over a body without a text Content-Type: base64 of the bytes sent. */
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function read(body: string | Uint8Array, options: Partial<RequestBodyOptions> = {}): unknown {
  return parseJsonRequestBody(body, { maxBytes: 10_000, maxDecodedBytes: 100_000, ...options });
}

function errorOf(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('compressed request bodies', () => {
  // A client that gzips its body says so in Content-Encoding; the body arrives base64 (binary).
  it.each<[string, (bytes: Buffer) => Buffer]>([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['br', brotliCompressSync],
    ['deflate', deflateSync],
    ['GZIP', gzipSync],
  ])('decodes Content-Encoding: %s', (coding, compress) => {
    const wire = base64(compress(Buffer.from(TEXT)));
    expect(read(wire, { isBase64Encoded: true, contentEncoding: coding })).toEqual(BODY);
  });

  // HTTP's deflate is the zlib format, but some clients send raw deflate: both work.
  it('accepts raw deflate as deflate', () => {
    const wire = base64(deflateRawSync(Buffer.from(TEXT)));
    expect(read(wire, { isBase64Encoded: true, contentEncoding: 'deflate' })).toEqual(BODY);
  });

  // Codings listed in the order applied: gzip first, then br. They are undone br first.
  it('undoes several codings in reverse order, and skips identity', () => {
    const wire = base64(brotliCompressSync(gzipSync(Buffer.from(TEXT))));
    expect(read(wire, { isBase64Encoded: true, contentEncoding: 'gzip, identity, br' })).toEqual(BODY);
  });

  // A header may list a coding many times, but the decoded-size limit holds for all layers
  // together: 3 layers of a body that decodes to 9 KB fit 30 KB, 4 do not fit 30 KB (36 KB of
  // output in all), so stacking codings cannot multiply the work per request.
  it('counts every layer of stacked codings against one decoded-size limit', () => {
    const inner = JSON.stringify({ mode: 'analyze', nodes: [{ id: 'x'.repeat(9000) }], dependencies: [] });
    let wire: Buffer = Buffer.from(inner);
    const layers: string[] = [];
    for (let i = 0; i < 4; i++) {
      // Each layer is the previous one stored uncompressed-ish (level 0): its output is ~9 KB.
      wire = gzipSync(wire, { level: 0 });
      layers.push('gzip');
    }
    const limits = { maxBytes: 1_000_000, isBase64Encoded: true };
    expect(() =>
      read(base64(wire), { ...limits, maxDecodedBytes: 30_000, contentEncoding: layers.join(', ') }),
    ).toThrow(/all its codings together/);
    expect(
      read(base64(wire), { ...limits, maxDecodedBytes: 40_000, contentEncoding: layers.join(', ') }),
    ).toEqual(JSON.parse(inner));
  });

  // The wire limit counts the bytes sent: 400 KB of JSON gzips to a few KB and is accepted,
  // while the same JSON uncompressed is over the 10 KB limit.
  it('applies the request limit to the compressed bytes and a second limit to the decoded body', () => {
    const big = JSON.stringify({
      mode: 'analyze',
      nodes: Array.from({ length: 2000 }, (_, i) => ({ id: `n${i}` })),
      dependencies: [],
    });
    expect(big.length).toBeGreaterThan(10_000);
    expect(errorOf(() => read(big)).code).toBe('LIMIT_EXCEEDED');
    const wire = base64(gzipSync(Buffer.from(big)));
    expect(Buffer.from(wire, 'base64').length).toBeLessThan(10_000);
    expect(read(wire, { isBase64Encoded: true, contentEncoding: 'gzip' })).toMatchObject({ mode: 'analyze' });
    const tight = errorOf(() =>
      read(wire, { isBase64Encoded: true, contentEncoding: 'gzip', maxDecodedBytes: 20_000 }),
    );
    expect(tight.code).toBe('LIMIT_EXCEEDED');
    expect(tight.status).toBe(413);
    expect(tight.message).toContain('decompresses to more than the limit of 20000 bytes');
  });

  // The advice fits the route: the engine's body may decode past its wire limit, so compressing
  // helps; a user route's small body (a PATCH's settings) is held to 64 KiB decoded too, so the
  // 413 asks for a smaller body and never suggests compressing, which would only meet a second 413.
  it('advises compressing only where the decoded body may be larger than the wire limit', () => {
    const big = JSON.stringify({
      settings: {
        nodes: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`n${i}`, { capacity: 1 }])),
      },
    });
    const engine = errorOf(() => read(big));
    expect(engine.message).toBe(
      'The request body is larger than the limit of 10000 bytes; send a smaller structure or compress it (Content-Encoding: gzip, br or deflate, sent as application/octet-stream).',
    );
    const small = { maxBytes: 10_000, maxDecodedBytes: 10_000, expects: 'a JSON object { settings }' };
    expect(errorOf(() => read(big, small)).message).toBe(
      'The request body is larger than the limit of 10000 bytes; send a smaller body (the route takes 10000 bytes at most, compressed or not).',
    );
    const gzipped = base64(gzipSync(Buffer.from(big)));
    expect(
      errorOf(() => read(gzipped, { ...small, isBase64Encoded: true, contentEncoding: 'gzip' })).message,
    ).toBe(
      'The request body decompresses to more than the limit of 10000 bytes (all its codings together); send a smaller body.',
    );
  });

  // A zip bomb: 1 KB of gzip that would inflate to 1 GB stops at the cap with a 413.
  it('stops a zip bomb at the decoded-size cap', () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(100_000);
    const error = errorOf(() =>
      parseJsonRequestBody(base64(bomb), {
        maxBytes: 6 * 1024 * 1024,
        maxDecodedBytes: 1024 * 1024,
        isBase64Encoded: true,
        contentEncoding: 'gzip',
      }),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
  });

  // An unknown coding is named, and the 415 says which codings would work.
  it('refuses an unknown coding with 415 and Accept-Encoding', () => {
    const error = errorOf(() =>
      read(base64(Buffer.from(TEXT)), { isBase64Encoded: true, contentEncoding: 'zstd' }),
    );
    expect(error.status).toBe(415);
    expect(error.code).toBe('UNSUPPORTED_CONTENT_ENCODING');
    expect(error.message).toContain('"zstd"');
    expect(error.headers).toEqual({ 'accept-encoding': 'gzip, br, deflate' });
  });

  // Bytes that are not what Content-Encoding claims: a payload error naming the coding.
  it('reports a body that is not the claimed coding as a payload error', () => {
    const error = errorOf(() =>
      read(base64(Buffer.from(TEXT)), { isBase64Encoded: true, contentEncoding: 'gzip' }),
    );
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toContain('not valid gzip data');
    expect(error.message).not.toContain('Content-Type');
  });

  // Compressed bytes sent with Content-Type: application/json reach the function as text, their
  // invalid UTF-8 already replaced: the message says to use a binary Content-Type.
  it('explains that compressed bodies need a binary Content-Type when they arrived as text', () => {
    const mangled = gzipSync(Buffer.from(TEXT)).toString('utf8');
    const error = errorOf(() => read(mangled, { contentEncoding: 'gzip' }));
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toContain('application/octet-stream');
  });

  // The size check (3) comes before the coding check: a huge body with an odd coding is a 413.
  it('checks the size before the coding', () => {
    expect(errorOf(() => read('x'.repeat(20_000), { contentEncoding: 'zstd' })).code).toBe('LIMIT_EXCEEDED');
  });
});

describe('invalid UTF-8: one rule however the body arrives', () => {
  // Base64 (no text Content-Type): the bytes are checked strictly.
  // Text (application/json): API Gateway has already replaced each bad byte with U+FFFD.
  // Both give the same 500 PAYLOAD_ERROR, so two different bad ids cannot collide as duplicates.
  it('refuses invalid bytes whether they arrive as base64 or as replaced text', () => {
    const bytes = IDS_DIFFERING_IN_INVALID_BYTES;
    const asBase64 = errorOf(() => read(base64(bytes), { isBase64Encoded: true }));
    const asText = errorOf(() => read(bytes.toString('utf8')));
    for (const error of [asBase64, asText]) {
      expect(error.code).toBe('PAYLOAD_ERROR');
      expect(error.message).toContain('not valid UTF-8');
    }
    expect(asText.message).toBe(asBase64.message);
  });

  // The escape \ufffd is how a caller sends a real replacement character.
  it('accepts U+FFFD written as an escape', () => {
    expect(read('{"id":"\\ufffd"}')).toEqual({ id: '\ufffd' });
  });
});
