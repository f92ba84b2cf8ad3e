import { createHash, randomBytes } from 'node:crypto';

/** Every key starts with this, so a leaked key is recognisable (secret scanners, logs, a person). */
const API_KEY_PREFIX = 'sbe_';

/** 32 random bytes = 256 bits, well above the 128 bits a guessing attack would need to beat. */
const API_KEY_RANDOM_BYTES = 32;

/** Characters of the key after `sbe_` kept as the display prefix. */
const DISPLAY_PREFIX_CHARS = 8;

/** Hex characters of the digest used as the key's public id. 48 bits: collisions are not a practical worry. */
const ID_HEX_CHARS = 12;

const ID_SHAPE = new RegExp(`^[0-9a-f]{${ID_HEX_CHARS}}$`);

/** Whether `text` could be a key's public id (`apiKeyIdFromDigest`): lower-case hex of its length. */
export function isApiKeyId(text: string): boolean {
  return ID_SHAPE.test(text);
}

/**
 * What a presented key must look like before it is worth a database lookup: 32 to 512 visible
 * ASCII characters (no spaces, no control characters). Much looser than a generated key so that
 * any string of 32 or more characters can be imported as `DEV_API_KEY` for local development and
 * tests; anything shorter is too guessable to be a key.
 */
const ACCEPTED_KEY_SHAPE = /^[\x21-\x7e]{32,512}$/;

/** The rule above in words, for error messages. */
export const ACCEPTED_KEY_RULE = '32 to 512 visible ASCII characters (no spaces)';

/**
 * A new secret key: `sbe_` + base64url (no padding) of 32 bytes from the OS CSPRNG, 43
 * characters: 47 in all.
 */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
}

/** Whether `candidate` has the shape of a key this service could have issued. Says nothing about validity. */
export function looksLikeApiKey(candidate: unknown): candidate is string {
  return typeof candidate === 'string' && ACCEPTED_KEY_SHAPE.test(candidate);
}

/**
 * SHA-256 hex digest of the whole key string: what is stored and looked up instead of the key.
 * A fast unsalted hash is enough here because the key carries 256 bits of randomness; there is no
 * dictionary to attack, unlike a password.
 */
export function hashApiKey(key: string): string {
  // Stryker disable next-line StringLiteral: an empty encoding name is read as UTF-8, the default
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The short public id of a key, from its digest. Safe to show, log and type on a command line. */
export function apiKeyIdFromDigest(digest: string): string {
  return digest.slice(0, ID_HEX_CHARS);
}

/** `sbe_` and the first 8 characters after it, e.g. `sbe_AbCdEfGh`: enough for a person to tell keys apart. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + DISPLAY_PREFIX_CHARS);
}
