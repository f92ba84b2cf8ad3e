/**
 * Credentials in a URL's query: found by their parameter's name, and never repeated by an error.
 */
import { describe, expect, it } from 'vitest';
import { credentialParameter, withoutCredentials } from '../../lib/text';

describe('credentialParameter', () => {
  it('names the first parameter that holds a credential, in any case, and none in a signed URL', () => {
    expect(credentialParameter(new URL('https://a.example/g?x=1&Access_Token=s'))).toBe('Access_Token');
    for (const name of ['accessToken', 'private_token', 'auth_token', 'X-API-Key'])
      expect(credentialParameter(new URL(`https://a.example/g?${name}=s`))).toBe(name);
    expect(credentialParameter(new URL('https://b.s3.amazonaws.com/g?X-Amz-Signature=s'))).toBeUndefined();
    // The URL parser drops tabs and line breaks: `to\tken` is `token`.
    expect(credentialParameter(new URL('https://a.example/g?to\tken=s'))).toBe('token');
  });
});

describe('withoutCredentials', () => {
  // What an error may repeat of a refused URL: never the user info, nor a credential's value,
  // however the name is spelt (percent-encoded, or with a tab the parser would drop).
  it.each([
    ['https://u:p@a.example/g', 'https://…@a.example/g'],
    ['https://a.example/g?h=1&access_token=SECRET#f', 'https://a.example/g?h=1&access_token=…#f'],
    ['https://a.example/g?tok%65n=SECRET', 'https://a.example/g?tok%65n=…'],
    ['https://a.example/g?to\tken=SECRET', 'https://a.example/g?to\tken=…'],
    ['https://a.example/g?lookback=1h', 'https://a.example/g?lookback=1h'],
  ])('%j reads %j', (url, shown) => {
    expect(withoutCredentials(url)).toBe(shown);
  });
});
