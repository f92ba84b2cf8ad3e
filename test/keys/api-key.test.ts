import { describe, expect, it } from 'vitest';
import {
  apiKeyDisplayPrefix,
  apiKeyIdFromDigest,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from '../../lib/keys/api-key';

describe('generateApiKey', () => {
  it('is sbe_ + 43 base64url characters carrying exactly 32 random bytes', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^sbe_[A-Za-z0-9_-]{43}$/);
    expect(key).toHaveLength(47);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
  });

  it('never repeats across 10 000 keys, and every one has the same shape', () => {
    // Models a busy day of key creation: a repeat would hand one tenant another's access.
    const keys = Array.from({ length: 10_000 }, generateApiKey);
    expect(new Set(keys).size).toBe(10_000);
    expect(keys.every((key) => /^sbe_[A-Za-z0-9_-]{43}$/.test(key))).toBe(true);
  });

  it('uses the whole base64url alphabet, including - and _ (so the body is not hex or base64)', () => {
    const seen = new Set(Array.from({ length: 2_000 }, generateApiKey).flatMap((key) => [...key.slice(4)]));
    expect(seen.has('-')).toBe(true);
    expect(seen.has('_')).toBe(true);
    expect(seen.has('+') || seen.has('/') || seen.has('=')).toBe(false);
    expect(seen.size).toBe(64);
  });
});

describe('hashApiKey, apiKeyIdFromDigest, apiKeyDisplayPrefix', () => {
  it('hashes the whole key string with SHA-256 to lowercase hex (FIPS 180-2 "abc" vector)', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('derives the public id from the digest and the display prefix from the key', () => {
    const key = 'sbe_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefg';
    const digest = hashApiKey(key);
    expect(apiKeyIdFromDigest(digest)).toBe(digest.slice(0, 12));
    expect(apiKeyDisplayPrefix(key)).toBe('sbe_AbCdEfGh');
  });
});

describe('looksLikeApiKey', () => {
  it('accepts generated keys and longer imported ones such as a fixed development key', () => {
    expect(looksLikeApiKey(generateApiKey())).toBe(true);
    expect(looksLikeApiKey('sbe_contractcheck0123456789abcdefghijklmnopqrstuv')).toBe(true);
    // Any string of 32 or more visible characters may serve as a development key.
    expect(looksLikeApiKey('my-local-development-key-0123456789')).toBe(true);
    expect(looksLikeApiKey(`SBE_${'a'.repeat(43)}+/=`)).toBe(true);
  });

  it('rejects what could never be a key, so it costs no database read', () => {
    for (const candidate of [
      undefined,
      42,
      '',
      'sbe_',
      'sbe_short',
      'a'.repeat(31),
      `sbe_${'a'.repeat(42)} `,
      `sbe_${'a'.repeat(20)}\n${'a'.repeat(20)}`,
      `sbe_${'é'.repeat(40)}`,
      'a'.repeat(513),
      // Not strings, though their text would pass: never handed to the hash.
      ['a'.repeat(40)],
      { toString: () => 'a'.repeat(40) },
    ]) {
      expect(looksLikeApiKey(candidate), String(candidate)).toBe(false);
    }
  });
});
