/**
 * Verifies user access tokens (`Authorization: Bearer <USER_ACCESS_TOKEN>`) with aws-jwt-verify:
 * signature (RS256 only), issuer, expiry (which must be there) and not-before, `token_use: access`
 * and the app client's `client_id`. Deployed, the tokens come from the Cognito user pool named by
 * `USER_POOL_ID` / `USER_POOL_CLIENT_ID`; locally, from the local issuer whose file the local
 * server names in `LOCAL_ISSUER_FILE`.
 */
import { CognitoJwtVerifier, JwtRsaVerifier } from 'aws-jwt-verify';
import { type Env, optionalEnv, requiredEnv } from '../config/env';
import { OWNER_SHAPE } from '../text';
import { type Jwk, readLocalIssuer } from './local-issuer';

/** Who the token belongs to: the user pool's `sub`, the owner of everything the user creates. */
export interface TokenUser {
  sub: string;
}

/** Resolves a presented token to its user, or `undefined` for any token that is not valid. */
export type VerifyUserToken = (token: string) => Promise<TokenUser | undefined>;

export type UserTokenConfig =
  | { kind: 'cognito'; userPoolId: string; clientId: string }
  | { kind: 'local'; issuerFile: string };

/** Reads the token settings at cold start; a function with neither set refuses to start. */
export function readUserTokenConfig(env: Env = process.env): UserTokenConfig {
  const userPoolId = optionalEnv(env, 'USER_POOL_ID');
  if (userPoolId !== undefined) {
    return { kind: 'cognito', userPoolId, clientId: requiredEnv(env, 'USER_POOL_CLIENT_ID') };
  }
  const issuerFile = optionalEnv(env, 'LOCAL_ISSUER_FILE');
  if (issuerFile !== undefined) return { kind: 'local', issuerFile };
  throw new Error('USER_POOL_ID and USER_POOL_CLIENT_ID are required (or LOCAL_ISSUER_FILE for a local run)');
}

/**
 * The verifier for a configuration. Cognito's JWKS is fetched once from the user pool and
 * cached by aws-jwt-verify; the local issuer's is primed from its file, and local tokens are
 * checked with `verifySync`, which never fetches: a token with an unknown `kid` is refused.
 */
export function createUserTokenVerifier(
  config: UserTokenConfig,
  options: { cognitoJwks?: { keys: Jwk[] } } = {},
): VerifyUserToken {
  if (config.kind === 'cognito') {
    const verifier = CognitoJwtVerifier.create({
      userPoolId: config.userPoolId,
      tokenUse: 'access',
      clientId: config.clientId,
    });
    // Tests prime the pool's JWKS so the deployed configuration is checked without a network.
    // Stryker disable next-line ConditionalExpression: aws-jwt-verify treats a cached undefined JWKS as none and fetches
    if (options.cognitoJwks !== undefined) verifier.cacheJwks(options.cognitoJwks);
    return async (token) =>
      strictlyShaped(token) ? userOf(await verifier.verify(token).catch(() => undefined)) : undefined;
  }
  const issuer = readLocalIssuer(config.issuerFile);
  const verifier = JwtRsaVerifier.create({
    issuer: issuer.issuer,
    audience: null,
    // Never fetched: the JWKS is cached below and only verifySync is used.
    // Stryker disable next-line StringLiteral: never fetched, as said above
    jwksUri: `${issuer.issuer}/.well-known/jwks.json`,
    customJwtCheck: ({ payload }) => {
      // The reasons are never shown: every refused token gets the same answer.
      if (payload.token_use !== 'access') {
        // Stryker disable next-line StringLiteral: the reason is never shown
        throw new Error('not an access token');
      }
      if (payload.client_id !== issuer.clientId) {
        // Stryker disable next-line StringLiteral: the reason is never shown
        throw new Error('issued for another client');
      }
    },
  });
  verifier.cacheJwks(issuer.jwks);
  return async (token) => {
    if (!strictlyShaped(token)) return undefined;
    try {
      return userOf(verifier.verifySync(token));
    } catch /* Stryker disable next-line BlockStatement: an empty catch returns undefined as well */ {
      return undefined;
    }
  };
}

/**
 * The token's user, if it names one and expires. aws-jwt-verify checks `exp` only when it is
 * there; a user pool always sets it, so a token without one was not issued by it, and would be
 * good for ever: refused (defence in depth).
 */
function userOf(payload: { sub?: unknown; exp?: unknown } | undefined): TokenUser | undefined {
  if (typeof payload?.exp !== 'number' || !Number.isFinite(payload.exp)) return undefined;
  // A `sub` no owner can be (a user pool's are UUIDs) is no user of this service: the token is
  // refused as any other, not read as a request naming a bad owner.
  return typeof payload.sub === 'string' && OWNER_SHAPE.test(payload.sub) ? { sub: payload.sub } : undefined;
}

/** Three parts of base64url without padding, as RFC 7515's compact form writes them. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Whether a token is in the strict compact form and asks for no extension: aws-jwt-verify decodes
 * the parts leniently (a signature with `==` after it verified all the same) and reads past a
 * `crit` header, which RFC 7515 §4.1.11 says a verifier must refuse when it does not know the
 * extensions listed, as this one knows none.
 */
function strictlyShaped(token: string): boolean {
  if (!COMPACT_JWS.test(token)) return false;
  try {
    const header: unknown = JSON.parse(
      Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'),
    );
    return typeof header === 'object' && header !== null && !Object.hasOwn(header, 'crit');
  } catch {
    return false;
  }
}
