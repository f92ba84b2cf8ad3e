import { type Env, envInt } from './env';

/** What one owner (a user: the access token's `sub`, the API key's owner) may keep. */
export interface Quotas {
  /** Registered systems. */
  readonly maxSystems: number;
  /** Active API keys (revoked ones do not count). */
  readonly maxKeys: number;
  /** Stored bytes over all systems, counted compressed, as stored. */
  readonly maxBytes: number;
}

export const DEFAULT_QUOTAS: Quotas = Object.freeze({
  maxSystems: 100,
  maxKeys: 20,
  maxBytes: 1024 * 1024 * 1024,
});

/** The environment variables, also the context keys' counterparts (infra/settings.ts). */
export const QUOTA_ENV = Object.freeze({
  maxSystems: 'MAX_SYSTEMS_PER_OWNER',
  maxKeys: 'MAX_KEYS_PER_OWNER',
  maxBytes: 'MAX_BYTES_PER_OWNER',
} as const satisfies Record<keyof Quotas, string>);

/** How far each quota may be set: above these a single owner could outgrow one partition's reads. */
export const QUOTA_RANGES = Object.freeze({
  maxSystems: { min: 1, max: 100_000 },
  maxKeys: { min: 1, max: 1000 },
  maxBytes: { min: 1, max: 1024 ** 4 },
} as const satisfies Record<keyof Quotas, { min: number; max: number }>);

/** Reads the quotas at cold start; a value that is not an integer in its range throws, naming it. */
export function readQuotas(env: Env = process.env): Quotas {
  const read = (key: keyof Quotas) => envInt(env, QUOTA_ENV[key], DEFAULT_QUOTAS[key], QUOTA_RANGES[key]);
  return Object.freeze({
    maxSystems: read('maxSystems'),
    maxKeys: read('maxKeys'),
    maxBytes: read('maxBytes'),
  });
}
