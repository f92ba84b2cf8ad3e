/**
 * The local stand-in for Amazon Cognito: an RSA key that signs access tokens shaped like a
 * user pool's (`token_use: access`, `client_id`, `iss`, `sub`, `exp`, RS256 with a `kid`).
 * The connect function verifies them with the same aws-jwt-verify code it uses for Cognito,
 * primed with this key's JWKS, so nothing is ever fetched over the network.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Env, envInt, optionalEnv } from '../config/env';

/** `.invalid` can never resolve (RFC 2606): a token from this issuer cannot be mistaken for a real one. */
const LOCAL_ISSUER = 'https://local-issuer.system-behavior-engine.invalid';
const LOCAL_CLIENT_ID = 'sbe-local-client';
const LOCAL_TOKEN_TTL_SECONDS = 3600;

/** A public RSA key as a JWKS lists it. A type alias, so it is a plain JSON object too. */
export type Jwk = { kty: 'RSA'; kid: string; alg: 'RS256'; use: 'sig'; n: string; e: string };

export interface LocalIssuer {
  issuer: string;
  clientId: string;
  kid: string;
  privateKey: KeyObject;
  jwks: { keys: Jwk[] };
}

/**
 * Where the local issuer keeps its key: in `DATA_DIR` when set (so tokens survive restarts),
 * else in a per-port folder under the system's temp dir. `npm run token` finds the same file
 * from the same `PORT` and `DATA_DIR`.
 */
export function localIssuerFile(where: { dataDir: string | undefined; port: number }): string {
  if (where.dataDir !== undefined) return join(where.dataDir, 'local-issuer.json');
  return join(tmpdir(), `sbe-local-${where.port}`, 'local-issuer.json');
}

/** `localIssuerFile` for the `DATA_DIR` and `PORT` of an environment, as the local server reads them. */
export function localIssuerFileFromEnv(env: Env): string {
  return localIssuerFile({
    dataDir: optionalEnv(env, 'DATA_DIR'),
    port: envInt(env, 'PORT', 3000, { min: 0, max: 65_535 }),
  });
}

interface StoredIssuer {
  issuer: string;
  clientId: string;
  kid: string;
  privateKey: string;
}

/** Reads the issuer at `file`, creating a fresh RSA-2048 key there first when there is none. */
export function loadOrCreateLocalIssuer(file: string): LocalIssuer {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  assertPrivate(dirname(file), 'directory');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const stored: StoredIssuer = {
      issuer: LOCAL_ISSUER,
      clientId: LOCAL_CLIENT_ID,
      kid: keyId(createPublicKey(privateKey)),
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    // Owner-only, and never through a name someone else created first (`wx`: O_EXCL, which also
    // refuses to follow a symbolic link): whoever can write this file can sign tokens for the
    // local server, whoever can read it too.
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  }
  assertPrivate(file, 'file');
  return readLocalIssuer(file);
}

/**
 * Refuses a key file or folder another user could have planted or can change: the default
 * location is under the shared temp dir, where anyone may create `sbe-local-<port>` first.
 * It must be a real directory or file (not a link), owned by this user, writable by no one
 * else. (Skipped where the platform has no user ids.)
 */
function assertPrivate(path: string, kind: 'directory' | 'file'): void {
  // Stryker disable next-line OptionalChaining: Windows has no getuid; the tests run where it exists
  const uid = process.getuid?.();
  // Stryker disable next-line ConditionalExpression: as above, uid is defined wherever the tests run
  if (uid === undefined) return;
  const stats = lstatSync(path);
  const isKind = kind === 'directory' ? stats.isDirectory() : stats.isFile();
  if (
    !isKind ||
    stats.uid !== uid ||
    (stats.mode & 0o022) !== 0 ||
    (kind === 'file' && (stats.mode & 0o077) !== 0)
  ) {
    throw new Error(
      `refusing the local token issuer's ${kind} ${path}: it must be a ${kind} owned by this user that ` +
        'no one else can change (or read, for the key file); remove it, or set DATA_DIR to a private folder',
    );
  }
}

/** Reads an existing issuer file; throws naming the file when there is none. */
export function readLocalIssuer(file: string): LocalIssuer {
  let stored: StoredIssuer;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as StoredIssuer;
  } catch {
    throw new Error(
      `no local token issuer at ${file}: start the local server (npm start) with the same PORT and DATA_DIR first`,
    );
  }
  const privateKey = createPrivateKey(stored.privateKey);
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as { n: string; e: string };
  return {
    issuer: stored.issuer,
    clientId: stored.clientId,
    kid: stored.kid,
    privateKey,
    jwks: {
      keys: [{ kty: 'RSA', kid: stored.kid, alg: 'RS256', use: 'sig', n: publicJwk.n, e: publicJwk.e }],
    },
  };
}

/** The RFC 7638 thumbprint of the public key: a stable `kid`. */
function keyId(publicKey: KeyObject): string {
  const { e, n } = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  return createHash('sha256')
    .update(JSON.stringify({ e, kty: 'RSA', n }))
    .digest('base64url');
}

export interface AccessTokenClaims {
  sub: string;
  /** Seconds since the epoch; default now. */
  issuedAt?: number;
  ttlSeconds?: number;
  /** Overrides for tests that need a token that is wrong in exactly one way. */
  overrides?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

/** A signed RS256 access token for `sub`, as a Cognito user pool would issue it. */
export function signAccessToken(issuer: LocalIssuer, claims: AccessTokenClaims): string {
  const iat = claims.issuedAt ?? Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', kid: issuer.kid, ...claims.header };
  const payload = {
    sub: claims.sub,
    iss: issuer.issuer,
    client_id: issuer.clientId,
    token_use: 'access',
    scope: 'aws.cognito.signin.user.admin',
    iat,
    exp: iat + (claims.ttlSeconds ?? LOCAL_TOKEN_TTL_SECONDS),
    jti: createHash('sha256')
      .update(`${claims.sub}:${iat}:${process.hrtime.bigint()}`)
      .digest('hex')
      .slice(0, 32),
    ...claims.overrides,
  };
  const signingInput = `${base64url(header)}.${base64url(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), issuer.privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
