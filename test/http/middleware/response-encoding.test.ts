import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api/errors';
import { type HttpContext, type HttpEvent, responseEncoding } from '../../../lib/http/middleware';
import { chooseContentCoding } from '../../../lib/http/middleware/response-encoding';
import type { RequestFacts } from '../../../lib/http/middleware/types';
import { type HttpResult, jsonTextResult } from '../../../lib/http/responses';
import { httpEvent } from '../events';

const LIMIT = 24 * 1024;

/** A handler returning `body` as a JSON 200, behind the encoding middleware with a 24 KiB response limit. */
function respond(body: string, acceptEncoding?: string, facts?: RequestFacts): Promise<HttpResult> {
  const handler = middy<HttpEvent, HttpResult, unknown, HttpContext>(() => jsonTextResult(200, body)).use(
    responseEncoding({ maxBytes: LIMIT }),
  );
  const headers: Record<string, string> =
    acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
  return handler(httpEvent({ headers }) as never, (facts === undefined ? {} : { facts }) as never);
}

/** About 8 KB of repetitive JSON, like a timeline: compresses very well. */
const LARGE = JSON.stringify({
  snapshots: Array.from({ length: 100 }, (_, tick) => ({ tick, load: [0, 5, 5] })),
});

function decoded(result: HttpResult): string {
  const bytes = Buffer.from(result.body, 'base64');
  const coding = result.headers['content-encoding'];
  return (coding === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString('utf8');
}

describe('responseEncoding', () => {
  // Under ~1 KB compression is not worth it: the body goes out as is, but caches still learn it could vary.
  it('leaves a small body alone and sets Vary', async () => {
    const result = await respond('{"mode":"tick"}', 'gzip, br');
    expect(result.body).toBe('{"mode":"tick"}');
    expect(result.isBase64Encoded).toBe(false);
    expect(result.headers['content-encoding']).toBeUndefined();
    expect(result.headers.vary).toBe('Accept-Encoding');
  });

  // A browser-like header: br is preferred, the body is base64 of the brotli bytes and decodes to the JSON.
  it('compresses a large body with br when accepted', async () => {
    const result = await respond(LARGE, 'gzip, deflate, br');
    expect(result.headers['content-encoding']).toBe('br');
    expect(result.isBase64Encoded).toBe(true);
    expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(decoded(result)).toBe(LARGE);
    expect(result.body.length).toBeLessThan(LARGE.length);
  });

  // curl --compressed style or br refused: gzip.
  it.each(['gzip', 'br;q=0, gzip', 'gzip;q=1, br;q=0.5'])(
    'uses gzip for Accept-Encoding %j',
    async (header) => {
      const result = await respond(LARGE, header);
      expect(result.headers['content-encoding']).toBe('gzip');
      expect(decoded(result)).toBe(LARGE);
    },
  );

  // No header, identity only, everything refused, or identity preferred: plain JSON.
  it.each([undefined, 'identity', 'gzip;q=0', 'deflate', '*;q=0', 'gzip;q=0.5, identity'])(
    'does not compress for Accept-Encoding %j',
    async (header) => {
      const result = await respond(LARGE, header);
      expect(result.headers['content-encoding']).toBeUndefined();
      expect(result.body).toBe(LARGE);
    },
  );

  // The same body twice compresses to the same bytes: responses stay byte-identical.
  it('is deterministic', async () => {
    expect((await respond(LARGE, 'br')).body).toBe((await respond(LARGE, 'br')).body);
    expect((await respond(LARGE, 'gzip')).body).toBe((await respond(LARGE, 'gzip')).body);
  });

  // 40 KB of JSON does not fit a 24 KiB limit as text, but fits gzipped: the 413 says how to get it.
  it('refuses an uncompressed body over the limit, pointing to Accept-Encoding', async () => {
    const body = JSON.stringify({ rows: Array.from({ length: 4000 }, (_, i) => `row ${i % 10}`) });
    expect(body.length).toBeGreaterThan(LIMIT);
    const error = await respond(body).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('LIMIT_EXCEEDED');
    expect((error as ApiError).message).toContain('Accept-Encoding: br, gzip');
    const compressed = await respond(body, 'gzip');
    expect(decoded(compressed)).toBe(body);
  });

  // Random hex barely compresses: even gzipped it stays over the limit, so the advice is to ask for less.
  it('refuses a body that is over the limit even compressed', async () => {
    const body = JSON.stringify({ noise: randomBytes(40_000).toString('hex') });
    const error = (await respond(body, 'gzip').catch((thrown: unknown) => thrown)) as ApiError;
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('even compressed with gzip');
    expect(error.message).not.toContain('Accept-Encoding');
    expect(error.message).toMatch(/ask for less: a smaller structure\.$/);
  });

  // What to ask for less of is the engine request's own, as the refusal before the run says it:
  // ticks only in mode ticks, `compare` only when it compares.
  it.each([
    [{ mode: 'analyze' }, 'a smaller structure.'],
    [{ mode: 'analyze', compare: true as const }, 'a smaller structure, or the scenario without `compare`.'],
    [{ mode: 'ticks', ticks: 50 }, 'fewer ticks or a smaller structure.'],
    [
      { mode: 'ticks', compare: true as const },
      'fewer ticks, a smaller structure, or the scenario without `compare`.',
    ],
    // A run by systemId sent no structure: the stored system is what to ask less of.
    [{ mode: 'analyze', stored: true as const }, 'a smaller system.'],
    [
      { mode: 'ticks', compare: true as const, stored: true as const },
      'fewer ticks, a smaller system, or the scenario without `compare`.',
    ],
  ])('says what the request %j could ask for less of', async (facts, less) => {
    const body = JSON.stringify({ noise: randomBytes(40_000).toString('hex') });
    for (const coding of ['gzip', undefined]) {
      const error = (await respond(body, coding, facts).catch((thrown: unknown) => thrown)) as ApiError;
      expect(error.message.endsWith(`ask for less: ${less}`)).toBe(true);
    }
  });

  // A pseudo-random 40 KB block of 0s and 1s, four times: gzip's 32 KB window cannot see the
  // repeats (23 KB), brotli's can (7 KB). Only brotli fits the ~12 KB left for a compressed body.
  const REPEATS_FAR_APART = (() => {
    let seed = 12345;
    const block = Array.from({ length: 40_000 }, () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 16) & 1;
    }).join('');
    return JSON.stringify({ blocks: [block, block, block, block] });
  })();

  // The client prefers gzip but accepts br: when gzip does not fit, br is tried before a 413.
  it.each(['gzip;q=1, br;q=0.5', 'gzip, br;q=0.1'])(
    'falls back to br when gzip does not fit, for %j',
    async (header) => {
      const result = await respond(REPEATS_FAR_APART, header);
      expect(result.headers['content-encoding']).toBe('br');
      expect(decoded(result)).toBe(REPEATS_FAR_APART);
    },
  );

  // Identity preferred, gzip merely acceptable: a body too large as text still goes out gzipped.
  it('compresses with a coding ranked below identity rather than refuse', async () => {
    const body = JSON.stringify({ rows: Array.from({ length: 4000 }, (_, i) => `row ${i % 10}`) });
    const result = await respond(body, 'identity, gzip;q=0.1');
    expect(result.headers['content-encoding']).toBe('gzip');
    expect(decoded(result)).toBe(body);
  });

  // Neither accepted coding fits: the 413 names both attempts.
  it('names every coding it tried when none fits', async () => {
    const body = JSON.stringify({ noise: randomBytes(40_000).toString('hex') });
    const error = (await respond(body, 'gzip, br;q=0.5').catch((thrown: unknown) => thrown)) as ApiError;
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('even compressed with gzip or br');
  });

  // JSON escaping counts: quotes inside a text body are escaped in Lambda's return value.
  it('counts the body as Lambda returns it, JSON escaping included', async () => {
    const quotes = `[${'"",'.repeat(5500)}""]`; // 16.5 KB raw, about 33 KB once escaped
    expect(quotes.length).toBeLessThan(LIMIT);
    const error = (await respond(quotes).catch((thrown: unknown) => thrown)) as ApiError;
    expect(error.code).toBe('LIMIT_EXCEEDED');
  });
});

describe('chooseContentCoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip, br', 'br'],
    ['gzip;q=0.9, br;q=0.8', 'gzip'],
    ['gzip;q=0.8, br;q=0.8', 'br'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['identity;q=0', undefined],
    ['identity;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, identity;q=0.4', 'gzip'],
    ['gzip;q=0.4, identity;q=0.5', undefined],
    ['gzip;q=abc', undefined],
    ['gzip;q=2', undefined],
    ['gzip ; q=0.7 ,, br ; q=0.6', 'gzip'],
  ])('%j -> %j', (header, expected) => {
    expect(chooseContentCoding(header)).toBe(expected);
  });
});
