/**
 * Cross-origin access for browsers, off unless `CORS_ALLOW_ORIGINS` lists origins. The local
 * server answers preflights and adds the headers from these settings; the API Gateway stack
 * hands the same settings to the HTTP API's CORS configuration, so both behave alike.
 */
import { type Env, optionalEnv } from '../config/env';

export interface CorsSettings {
  /** Exact origins (`https://app.example.com`), or `['*']` for any origin. */
  readonly allowOrigins: readonly string[];
  /** Request headers a browser may send: the credentials, body headers, If-Match and If-None-Match the API reads. */
  readonly allowHeaders: readonly string[];
  /**
   * Response headers a browser lets the page read beyond the CORS-safelisted ones: when to retry
   * a 503 or 429 (`Retry-After`), which credential a 401 wants (`WWW-Authenticate`), and the
   * methods a 405 allows (`Allow`), the ETag a settings PATCH sends back in If-Match.
   */
  readonly exposeHeaders: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. */
  readonly maxAgeSeconds: number;
}

const CORS_ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'content-encoding',
  'if-match',
  'if-none-match',
] as const;
const CORS_EXPOSE_HEADERS = ['retry-after', 'www-authenticate', 'allow', 'etag'] as const;
const CORS_MAX_AGE_SECONDS = 600;

/**
 * Reads `CORS_ALLOW_ORIGINS`: a comma-separated list of origins (scheme, host and port, no
 * path), or `*`. Unset means CORS is off: no preflight answers, no CORS headers. A value that
 * is not a list of origins stops the start, naming the variable and the entry.
 */
export function readCorsSettings(env: Env = process.env): CorsSettings | undefined {
  const raw = optionalEnv(env, 'CORS_ALLOW_ORIGINS');
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((entry) => entry.trim());
  const allowOrigins = entries.includes('*') ? ['*'] : entries.map(checkedOrigin);
  return {
    allowOrigins,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAgeSeconds: CORS_MAX_AGE_SECONDS,
  };
}

function checkedOrigin(entry: string): string {
  let origin: string | undefined;
  try {
    const url = new URL(entry);
    if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin !== entry.replace(/\/$/, '')) {
    throw new Error(
      `CORS_ALLOW_ORIGINS must be * or a comma-separated list of origins such as https://app.example.com ` +
        `(scheme, host and port only); ${JSON.stringify(entry.slice(0, 60))} is not one`,
    );
  }
  return origin;
}

/** The `Access-Control-Allow-Origin` value for a request's `Origin`, or `undefined` when it is not allowed. */
export function allowedOrigin(
  settings: CorsSettings | undefined,
  origin: string | undefined,
): string | undefined {
  if (settings === undefined || origin === undefined) return undefined;
  if (settings.allowOrigins.includes('*')) return '*';
  return settings.allowOrigins.includes(origin) ? origin : undefined;
}

/**
 * The CORS headers of a preflight answer (204) for a path that takes `allow`, as API Gateway
 * gives them: for an allowed origin the origin, methods, headers and max age; for any other
 * origin none, so the browser refuses the real request. Answers vary by Origin either way.
 */
export function preflightCorsHeaders(
  settings: CorsSettings,
  origin: string | undefined,
  allow: readonly string[],
): Record<string, string> {
  if (origin === undefined) return { vary: 'Origin' };
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-allow-methods': allow.join(', '),
    'access-control-allow-headers': settings.allowHeaders.join(', '),
    'access-control-max-age': String(settings.maxAgeSeconds),
  };
}
