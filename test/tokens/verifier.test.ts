import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createUserTokenVerifier,
  type LocalIssuer,
  loadOrCreateLocalIssuer,
  localIssuerFileFromEnv,
  readUserTokenConfig,
  signAccessToken,
} from '../../lib/tokens';

const folder = mkdtempSync(join(tmpdir(), 'sbe-tokens-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const issuerFile = join(folder, 'local-issuer.json');
const issuer = loadOrCreateLocalIssuer(issuerFile);
const verify = createUserTokenVerifier({ kind: 'local', issuerFile });
const now = () => Math.floor(Date.now() / 1000);

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => token.split('.') as [string, string, string];

describe('local access tokens', () => {
  // The token a user gets from `npm run token` is accepted, and names its user.
  it('accepts a fresh access token and returns its sub', async () => {
    await expect(verify(signAccessToken(issuer, { sub: 'alice' }))).resolves.toEqual({ sub: 'alice' });
  });

  // The key file is private to its owner and reused, so tokens survive a restart with DATA_DIR.
  it('keeps its key in an owner-only file and reuses it', () => {
    expect(statSync(issuerFile).mode & 0o777).toBe(0o600);
    const again = loadOrCreateLocalIssuer(issuerFile);
    expect(again.kid).toBe(issuer.kid);
    expect(JSON.parse(readFileSync(issuerFile, 'utf8')).privateKey).toContain('PRIVATE KEY');
  });

  // Every way a token can be wrong is the same answer: not a valid token.
  it.each<[string, (issuer: LocalIssuer) => string]>([
    ['a malformed token', () => 'not-a-jwt'],
    ['an empty token', () => ''],
    [
      'an id token instead of an access token',
      (i) =>
        signAccessToken(i, {
          sub: 'alice',
          overrides: { token_use: 'id', aud: i.clientId, client_id: undefined },
        }),
    ],
    [
      'a token for another client',
      (i) => signAccessToken(i, { sub: 'alice', overrides: { client_id: 'other-app' } }),
    ],
    [
      'a token from another issuer',
      (i) => signAccessToken(i, { sub: 'alice', overrides: { iss: 'https://evil.example' } }),
    ],
    [
      'an expired token',
      (i) => signAccessToken(i, { sub: 'alice', issuedAt: now() - 7200, ttlSeconds: 3600 }),
    ],
    ['a token not valid yet', (i) => signAccessToken(i, { sub: 'alice', overrides: { nbf: now() + 600 } })],
    // Signed by the right key but good for ever: no user pool issues one.
    ['a token without exp', (i) => signAccessToken(i, { sub: 'alice', overrides: { exp: undefined } })],
    [
      'a token whose exp is not a number',
      (i) => signAccessToken(i, { sub: 'alice', overrides: { exp: '9999999999' } }),
    ],
    ['a token without sub', (i) => signAccessToken(i, { sub: '', overrides: { sub: undefined } })],
    // An empty sub would make every such token the same user.
    ['a token whose sub is empty', (i) => signAccessToken(i, { sub: '' })],
    [
      'an id token that carries the client id',
      (i) => signAccessToken(i, { sub: 'alice', overrides: { token_use: 'id' } }),
    ],
    [
      'alg none',
      (i) => {
        const [, payload] = parts(signAccessToken(i, { sub: 'alice' }));
        return `${b64({ alg: 'none', typ: 'JWT', kid: i.kid })}.${payload}.`;
      },
    ],
    [
      'HS256 signed with the public key',
      (i) => {
        const [, payload] = parts(signAccessToken(i, { sub: 'alice' }));
        const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: i.kid })}.${payload}`;
        const publicPem = JSON.stringify(i.jwks.keys[0]);
        return `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
      },
    ],
    ['an unknown kid', (i) => signAccessToken(i, { sub: 'alice', header: { kid: 'someone-elses-key' } })],
    [
      'a tampered payload',
      (i) => {
        const [header, , signature] = parts(signAccessToken(i, { sub: 'alice' }));
        const forged = b64({
          sub: 'admin',
          iss: i.issuer,
          client_id: i.clientId,
          token_use: 'access',
          exp: now() + 3600,
        });
        return `${header}.${forged}.${signature}`;
      },
    ],
    [
      'a tampered signature',
      (i) => {
        const [header, payload, signature] = parts(signAccessToken(i, { sub: 'alice' }));
        const flipped = (signature[5] === 'A' ? 'B' : 'A') + signature.slice(1);
        return `${header}.${payload}.${signature.slice(0, 5)}${flipped.slice(0, 1)}${signature.slice(6)}`;
      },
    ],
    [
      "a token signed by another issuer's key",
      () => signAccessToken(loadOrCreateLocalIssuer(join(folder, 'other.json')), { sub: 'alice' }),
    ],
    // RFC 7515 §4.1.11: an extension the verifier does not know, marked critical, is refused.
    [
      'a token whose header lists critical extensions',
      (i) => signAccessToken(i, { sub: 'alice', header: { crit: ['exp2'] } }),
    ],
    // Base64url has no padding in the compact form; aws-jwt-verify decoded `==` past it.
    ['a token with padding after its signature', (i) => `${signAccessToken(i, { sub: 'alice' })}==`],
    ['a token with a fourth part', (i) => `${signAccessToken(i, { sub: 'alice' })}.`],
    // Signed, but its sub can be no owner (a user pool's are UUIDs): a 400 naming "owner" before.
    ['a token whose sub is no owner', (i) => signAccessToken(i, { sub: 'OWNER#x' })],
    ['a token whose sub is too long', (i) => signAccessToken(i, { sub: 'a'.repeat(129) })],
  ])('refuses %s', async (_name, forge) => {
    await expect(verify(forge(issuer))).resolves.toBeUndefined();
  });
});

describe('the tokens the local issuer signs', () => {
  const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

  // Shaped like a Cognito user pool's access token, so the same verifier code reads both.
  it('look like a user pool access token', () => {
    const before = now();
    const token = signAccessToken(issuer, { sub: 'alice' });
    const after = now();
    const [header, payload] = parts(token).slice(0, 2).map(decode) as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: issuer.kid });
    expect(payload).toMatchObject({
      sub: 'alice',
      iss: 'https://local-issuer.system-behavior-engine.invalid',
      client_id: 'sbe-local-client',
      token_use: 'access',
      scope: 'aws.cognito.signin.user.admin',
    });
    const iat = payload.iat as number;
    expect(iat).toBeGreaterThanOrEqual(before);
    expect(iat).toBeLessThanOrEqual(after);
    expect(payload.exp).toBe(iat + 3600);
    expect(payload.jti).toMatch(/^[0-9a-f]{32}$/);
    // Two tokens signed in the same second still differ.
    const again = decode(parts(signAccessToken(issuer, { sub: 'alice', issuedAt: iat }))[1]);
    expect(again.jti).not.toBe(payload.jti);
  });

  // The JWKS lists the public half of the key, marked for RS256 signatures, under the RFC 7638
  // thumbprint as its kid.
  it('publish the public key under its thumbprint', () => {
    const [jwk] = issuer.jwks.keys;
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: issuer.kid });
    const thumbprint = createHash('sha256')
      .update(JSON.stringify({ e: jwk!.e, kty: 'RSA', n: jwk!.n }))
      .digest('base64url');
    expect(issuer.kid).toBe(thumbprint);
  });
});

describe('the deployed (Cognito) configuration', () => {
  // The same code path as in AWS, with the pool's JWKS primed instead of fetched: tokens must
  // carry the pool's issuer, token_use access and the app client's id.
  const userPoolId = 'us-east-1_Example1';
  const poolIssuer = {
    ...issuer,
    issuer: `https://cognito-idp.us-east-1.amazonaws.com/${userPoolId}`,
    clientId: 'app-client-1',
  };
  const cognito = createUserTokenVerifier(
    { kind: 'cognito', userPoolId, clientId: 'app-client-1' },
    { cognitoJwks: issuer.jwks },
  );

  it('accepts an access token of the pool and refuses one of another client or of another pool', async () => {
    await expect(cognito(signAccessToken(poolIssuer, { sub: 'bob' }))).resolves.toEqual({ sub: 'bob' });
    await expect(
      cognito(signAccessToken({ ...poolIssuer, clientId: 'other' }, { sub: 'bob' })),
    ).resolves.toBeUndefined();
    await expect(cognito(signAccessToken(issuer, { sub: 'bob' }))).resolves.toBeUndefined();
    await expect(
      cognito(signAccessToken(poolIssuer, { sub: 'bob', overrides: { token_use: 'id' } })),
    ).resolves.toBeUndefined();
    await expect(
      cognito(signAccessToken(poolIssuer, { sub: 'bob', overrides: { exp: undefined } })),
    ).resolves.toBeUndefined();
  });

  // As deployed: nothing primed, so the pool's JWKS would be fetched on the first well-formed
  // token; a malformed one is refused before that.
  it('starts without a primed JWKS', async () => {
    const deployed = createUserTokenVerifier({ kind: 'cognito', userPoolId, clientId: 'app-client-1' });
    await expect(deployed('not-a-jwt')).resolves.toBeUndefined();
  });

  it('reads USER_POOL_ID and USER_POOL_CLIENT_ID, or LOCAL_ISSUER_FILE, and refuses neither', () => {
    expect(readUserTokenConfig({ USER_POOL_ID: 'p', USER_POOL_CLIENT_ID: 'c' })).toEqual({
      kind: 'cognito',
      userPoolId: 'p',
      clientId: 'c',
    });
    expect(() => readUserTokenConfig({ USER_POOL_ID: 'p' })).toThrow('USER_POOL_CLIENT_ID is required');
    expect(readUserTokenConfig({ LOCAL_ISSUER_FILE: '/x' })).toEqual({ kind: 'local', issuerFile: '/x' });
    expect(() => readUserTokenConfig({})).toThrow(/USER_POOL_ID/);
  });

  // npm start and npm run token find the same key from the same PORT and DATA_DIR.
  it('places the issuer file by DATA_DIR, else by PORT', () => {
    expect(localIssuerFileFromEnv({ DATA_DIR: '/data', PORT: '4000' })).toBe('/data/local-issuer.json');
    expect(localIssuerFileFromEnv({ PORT: '4000' })).toBe(
      join(tmpdir(), 'sbe-local-4000', 'local-issuer.json'),
    );
    expect(localIssuerFileFromEnv({})).toBe(join(tmpdir(), 'sbe-local-3000', 'local-issuer.json'));
    expect(() => localIssuerFileFromEnv({ PORT: '65536' })).toThrow('PORT');
    expect(() => localIssuerFileFromEnv({ PORT: '-1' })).toThrow('PORT');
  });
});
