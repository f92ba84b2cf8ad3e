import { describe, expect, it } from 'vitest';
import { allowedOrigin, readCorsSettings } from '../../lib/http/cors';

describe('readCorsSettings', () => {
  // Off unless asked for: no origin gets CORS headers.
  it('is off when CORS_ALLOW_ORIGINS is unset', () => {
    expect(readCorsSettings({})).toBeUndefined();
    expect(allowedOrigin(undefined, 'https://app.example.com')).toBeUndefined();
  });

  // A list of exact origins; a trailing slash is forgiven, anything with a path is not an origin.
  it('reads a list of origins and allows exactly those', () => {
    const settings = readCorsSettings({
      CORS_ALLOW_ORIGINS: 'https://app.example.com, http://localhost:5173/',
    });
    expect(settings?.allowOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(settings?.allowHeaders).toEqual([
      'authorization',
      'content-type',
      'content-encoding',
      'if-match',
      'if-none-match',
    ]);
    expect(settings?.exposeHeaders).toEqual(['retry-after', 'www-authenticate', 'allow', 'etag']);
    expect(allowedOrigin(settings, 'https://app.example.com')).toBe('https://app.example.com');
    expect(allowedOrigin(settings, 'https://evil.example.com')).toBeUndefined();
    expect(allowedOrigin(settings, 'https://app.example.com.evil.example')).toBeUndefined();
    expect(allowedOrigin(settings, undefined)).toBeUndefined();
  });

  it('allows any origin with *', () => {
    expect(allowedOrigin(readCorsSettings({ CORS_ALLOW_ORIGINS: '*' }), 'https://x.example')).toBe('*');
  });

  // A mistake stops the start, naming the variable and the entry.
  it.each(['app.example.com', 'https://app.example.com/path', 'ftp://files.example.com', ' '])(
    'refuses %j',
    (value) => {
      expect(() => readCorsSettings({ CORS_ALLOW_ORIGINS: value })).toThrow(/CORS_ALLOW_ORIGINS/);
    },
  );
});
