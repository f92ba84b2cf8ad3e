import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { apiKeyAuth, type HttpContext, type HttpEvent } from '../../../lib/http/middleware';
import { apiErrorOf, httpEvent } from '../events';

const GOOD_KEY = 'sbe_goodgoodgoodgoodgoodgoodgoodgood';

/** A handler that reports what the middleware left for it: the caller and the headers. */
function handlerBehindAuth(known: Record<string, { id: string; owner: string }> = {}) {
  const presented: string[] = [];
  const handler = middy<HttpEvent, unknown, unknown, HttpContext>(
    (event: HttpEvent, context: HttpContext) => ({
      apiKey: context.apiKey,
      headers: event.headers,
    }),
  ).use(
    apiKeyAuth({
      verify: async (key) => {
        presented.push(key);
        return known[key];
      },
    }),
  );
  const call = (headers: Record<string, string>) => handler(httpEvent({ headers }) as never, {} as never);
  return { call, presented };
}

describe('apiKeyAuth', () => {
  // A caller who forgot the header is told how to send it, with the challenge RFC 6750 asks for.
  it('answers a request without Authorization with 401 MISSING_API_KEY and WWW-Authenticate: Bearer', async () => {
    const { call, presented } = handlerBehindAuth();
    const error = await apiErrorOf(call({}));
    expect(error.code).toBe('MISSING_API_KEY');
    expect(error.status).toBe(401);
    expect(error.headers).toEqual({ 'www-authenticate': 'Bearer' });
    expect(error.message).toContain('Authorization: Bearer <API_KEY>');
    expect(presented).toEqual([]);
  });

  // Basic credentials, a bare scheme, a token with spaces and two joined headers are all "not a Bearer key".
  it.each([
    'Basic dXNlcjpwdw==',
    'Bearer',
    'Bearer ',
    `Bearer ${GOOD_KEY} extra`,
    `Bearer ${GOOD_KEY},Bearer ${GOOD_KEY}`,
    GOOD_KEY,
  ])('answers Authorization %j with 401 MISSING_API_KEY', async (header) => {
    const { call, presented } = handlerBehindAuth({ [GOOD_KEY]: { id: 'k1', owner: 'o' } });
    const error = await apiErrorOf(call({ authorization: header }));
    expect(error.code).toBe('MISSING_API_KEY');
    expect(error.headers?.['www-authenticate']).toBe('Bearer');
    expect(presented).toEqual([]);
  });

  // `Bearer` and nothing after it is a key field left blank: said so, not "must use the Bearer
  // scheme", which it does.
  it.each(['Bearer', 'Bearer ', 'bearer\t'])('says no key follows Bearer in %j', async (header) => {
    const { call } = handlerBehindAuth();
    const error = await apiErrorOf(call({ authorization: header }));
    expect(error.message).toBe(
      'The Authorization header holds no API key after Bearer: `Authorization: Bearer <API_KEY>`.',
    );
    const other = await apiErrorOf(call({ authorization: 'Basic dXNlcjpwdw==' }));
    expect(other.message).toContain('must use the Bearer scheme');
  });

  // Two Authorization headers arrive joined by a comma, even two copies of one good key: the
  // answer says the header came more than once (it said "must use the Bearer scheme", which both did).
  // Whatever the two held: an empty one after the key (it read the rest as part of the key: 403),
  // an empty one first, or another scheme on either side.
  it.each([
    `Bearer ${GOOD_KEY},Bearer ${GOOD_KEY}`,
    `Bearer ${GOOD_KEY}, bearer other`,
    `Bearer ${GOOD_KEY},bearer`,
    `Bearer,Bearer ${GOOD_KEY}`,
    `Bearer ${GOOD_KEY},Basic dXNlcjpwdw==`,
    `Basic dXNlcjpwdw==,Bearer ${GOOD_KEY}`,
    `Bearer ${GOOD_KEY},DPoP`,
    `Bearer ${GOOD_KEY},Token abc`,
    `Bearer ${GOOD_KEY},`,
    `,Bearer ${GOOD_KEY}`,
  ])('says the header came more than once in %j', async (header) => {
    const { call } = handlerBehindAuth({ [GOOD_KEY]: { id: 'k1', owner: 'o' } });
    const error = await apiErrorOf(call({ authorization: header }));
    expect([error.code, error.message]).toEqual([
      'MISSING_API_KEY',
      'The Authorization header was sent more than once; send one: `Authorization: Bearer <API_KEY>`.',
    ]);
  });

  // A key may hold a comma, even before a word that names a scheme: it is looked up as sent, and
  // a key that is one is taken (the first reading of a doubled header refused such keys with 401).
  it.each([
    'legacy-0123456789abcdef0123456789,Basic/Q2',
    'legacy-0123456789abcdef0123456789,bearer',
    'legacy-0123456789abcdef0123456789,Digest:x',
  ])('takes a key holding a comma, %j', async (key) => {
    const { call, presented } = handlerBehindAuth({ [key]: { id: 'k2', owner: 'o' } });
    expect(await call({ authorization: `Bearer ${key}` })).toBeDefined();
    expect(presented).toEqual([key]);
  });

  // Such a key unknown or revoked is told it is not valid (403), not that it came twice: a word
  // after a comma that names no scheme is part of the key.
  it('refuses an unknown key holding a comma with 403, not as a header sent twice', async () => {
    const { call } = handlerBehindAuth();
    const error = await apiErrorOf(call({ authorization: 'Bearer legacy-0123456789abcdef0123456789,abc' }));
    expect(error.code).toBe('INVALID_API_KEY');
  });

  // The scheme is case-insensitive and extra spaces or a tab between scheme and key are tolerated.
  it.each([
    `Bearer ${GOOD_KEY}`,
    `bearer ${GOOD_KEY}`,
    `BEARER   ${GOOD_KEY}`,
    `Bearer\t${GOOD_KEY}`,
    ` Bearer ${GOOD_KEY} `,
  ])('accepts Authorization %j', async (header) => {
    const { call, presented } = handlerBehindAuth({ [GOOD_KEY]: { id: 'k1', owner: 'owner-1' } });
    const result = (await call({ authorization: header })) as { apiKey: unknown };
    expect(result.apiKey).toEqual({ id: 'k1', owner: 'owner-1' });
    expect(presented).toEqual([GOOD_KEY]);
  });

  // Unknown and revoked keys look the same to the caller: the verifier says "undefined" for both.
  it('answers an unknown key with 403 INVALID_API_KEY', async () => {
    const { call } = handlerBehindAuth();
    const error = await apiErrorOf(call({ authorization: `Bearer ${GOOD_KEY}` }));
    expect(error.code).toBe('INVALID_API_KEY');
    expect(error.status).toBe(403);
    expect(error.message).not.toContain(GOOD_KEY);
  });

  // Handlers downstream learn who called (id, owner) but can no longer see the key anywhere.
  it('puts only id and owner on the context and removes the Authorization header from the event', async () => {
    const { call } = handlerBehindAuth({ [GOOD_KEY]: { id: 'k1', owner: 'o', secret: 'x' } as never });
    const result = (await call({ Authorization: `Bearer ${GOOD_KEY}`, 'x-other': '1' })) as {
      apiKey: unknown;
      headers: Record<string, string>;
    };
    expect(result.apiKey).toEqual({ id: 'k1', owner: 'o' });
    expect(result.headers).toEqual({ 'x-other': '1' });
  });

  // A DynamoDB outage is not the caller's fault: it must not be disguised as "invalid key".
  it('lets a failing verifier propagate instead of answering 403', async () => {
    const handler = middy<HttpEvent, unknown, unknown, HttpContext>(() => 'ok').use(
      apiKeyAuth({
        verify: async () => {
          throw new Error('table unavailable');
        },
      }),
    );
    await expect(
      handler(httpEvent({ headers: { authorization: `Bearer ${GOOD_KEY}` } }) as never, {} as never),
    ).rejects.toThrow('table unavailable');
  });
});
