/**
 * Credentials in a URL's query or fragment: found by their parameter's name, and never repeated by an error.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { credentialParameter, withoutCredentials } from '../../lib/text';

describe('credentialParameter', () => {
  it('names the first parameter that holds a credential, in any case, and none in a signed URL', () => {
    expect(credentialParameter(new URL('https://a.example/g?x=1&Access_Token=s'))).toBe('Access_Token');
    for (const name of ['accessToken', 'private_token', 'auth_token', 'X-API-Key'])
      expect(credentialParameter(new URL(`https://a.example/g?${name}=s`))).toBe(name);
    expect(credentialParameter(new URL('https://b.s3.amazonaws.com/g?X-Amz-Signature=s'))).toBeUndefined();
    // A presigned URL made with temporary credentials carries their session token: that is one.
    expect(
      credentialParameter(new URL('https://b.s3.amazonaws.com/g?X-Amz-Signature=s&X-Amz-Security-Token=t')),
    ).toBe('X-Amz-Security-Token');
    // The URL parser drops tabs and line breaks: `to\tken` is `token`.
    expect(credentialParameter(new URL('https://a.example/g?to\tken=s'))).toBe('token');
    // The fragment too, read as a router writes it; a plain anchor holds none.
    expect(credentialParameter(new URL('https://a.example/g#/callback?access_token=s'))).toBe('access_token');
    expect(credentialParameter(new URL('https://a.example/g#a=1#Token=s'))).toBe('Token');
    expect(credentialParameter(new URL('https://a.example/g?x=1#section'))).toBeUndefined();
    // A server may split a query at `;` too, where the URL parser reads one parameter `a`.
    expect(credentialParameter(new URL('https://a.example/g?a=1;token=s'))).toBe('token');
    expect(credentialParameter(new URL('https://a.example/g?a=1;b=2'))).toBeUndefined();
  });
});

// Every name docs/connect.md lists in its URL rules, read from the page: the list and the docs
// cannot drift apart.
const DOCUMENTED = (() => {
  const page = readFileSync(new URL('../../docs/connect.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const rule = /nor a credential in the query or the fragment \((.*?) any case/.exec(page)?.[1] ?? '';
  return [...rule.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
})();

it('reads twenty documented names', () => expect(DOCUMENTED).toHaveLength(20));

describe('the names of credentials', () => {
  it.each(DOCUMENTED)('%s is one, in the query and in the fragment', (name) => {
    expect(credentialParameter(new URL(`https://a.example/g?x=1&${name}=s`))).toBe(name);
    expect(credentialParameter(new URL(`https://a.example/g#/cb?${name}=s`))).toBe(name);
    expect(withoutCredentials(`https://a.example/g?${name}=SECRET`)).toBe(`https://a.example/g?${name}=…`);
  });
});

describe('withoutCredentials', () => {
  // What an error may repeat of a refused URL: never the user info, nor a credential's value,
  // however the name is spelt (percent-encoded, or with a tab the parser would drop).
  it.each([
    ['https://u:p@a.example/g', 'https://…@a.example/g'],
    ['https://a.example/g?next=https://u:SECRET@b.example/', 'https://…@b.example/'],
    ['https://a.example/g?h=1&access_token=SECRET#f', 'https://a.example/g?h=1&access_token=…#f'],
    ['https://a.example/g?tok%65n=SECRET', 'https://a.example/g?tok%65n=…'],
    ['https://a.example/g?to\tken=SECRET', 'https://a.example/g?to\tken=…'],
    ['https://a.example/g?lookback=1h', 'https://a.example/g?lookback=1h'],
    // A `+` is a space in a query (`access token` is no parameter of the list); a name that is no
    // valid percent-encoding is read as written.
    ['https://a.example/g?access+token=x&token=SECRET', 'https://a.example/g?access+token=x&token=…'],
    ['https://a.example/g?%E0%A4%A=1&secret=SECRET', 'https://a.example/g?%E0%A4%A=1&secret=…'],
    // In the fragment, wherever a router puts it.
    ['https://a.example/g#/cb?access_token=SECRET&x=1', 'https://a.example/g#/cb?access_token=…&x=1'],
    ['https://a.example/g#state=1;token=SECRET', 'https://a.example/g#state=1;token=…'],
    ['https://a.example/g#a=1#token=SECRET', 'https://a.example/g#a=1#token=…'],
    // A value runs to the next `&` or `#`, as the URL parser reads it: what follows a `;`, `/`,
    // `!` or `?` in it is the credential's too.
    ['http://a.co/?token=x;SECRET', 'http://a.co/?token=…'],
    ['http://a.co/?token=x/SECRET&b=1', 'http://a.co/?token=…&b=1'],
    ['http://a.co/?token=x!SECRET?MORE#f', 'http://a.co/?token=…#f'],
    ['http://a.co/?a=1;token=SECRET&b=2', 'http://a.co/?a=1;token=…&b=2'],
    ['http://a.co/?token=a;key=SECRET&b=2', 'http://a.co/?token=…&b=2'],
    ['https://a.example/g#/cb?access_token=SECRET;state=1', 'https://a.example/g#/cb?access_token=…'],
    // In the fragment a `#` is one more character of the value: the fragment runs to the end.
    ['https://a.example/g#access_token=abc#SECRET', 'https://a.example/g#access_token=…'],
    ['https://a.example/g?x=1#token=abc#def&y=2', 'https://a.example/g?x=1#token=…&y=2'],
    // A URL that does not parse: everything before its last `@` is masked, but for its scheme,
    // whatever the password holds (`?`, `#`, `/`, `@`).
    ['http//u:SECRET@a.example/g', 'http//…@a.example/g'],
    ['u:SECRET@a.example/g', '…@a.example/g'],
    ['https:/u:SECRET@a.example', 'https:/…@a.example'],
    // A URL with user info of its own and a broken one in its query, or a password holding @.
    ['http://u:p@h/?next=http://x:SE/CRET@y.example/', 'http://…@y.example/'],
    ['https://user:pa@SE/CRET@host.example/g', 'https://…@host.example/g'],
    // A credential's value holding an @: masked by its name before the cut at the last @.
    ['https://u:p@h.example/?access_token=eyJ@SECRETTAIL', 'https://…@h.example/?access_token=…'],
    ['https://h.example/?token=abc@SECRETTAIL&x=1', 'https://h.example/?token=…&x=1'],
    ['https://h/#access_token=ab@SECRET', 'https://h/#access_token=…'],
    ['https://[bad/?token=x@SECRETTAIL', 'https://[bad/?token=…'],
    ['http://user:SE?CRET@a.example/x', 'http://…@a.example/x'],
    ['http://user:SE#CRET@a.example', 'http://…@a.example'],
    ['http://user:SE/CRET@a.example', 'http://…@a.example'],
    ['ftp//u:SE@CRET@host', 'ftp//…@host'],
    ['javascript:alert(1)', 'javascript:alert(1)'],
    // A password the parser reads as a port and a path, a query or a fragment.
    ['http://u:123/SECRET@h/', 'http://…@h/'],
    ['http://u:8080?SECRET@h', 'http://…@h'],
    ['http://u:80#SECRET@h', 'http://…@h'],
    ['https://a.example/g?next=https://u:SE/CRET@b.example/', 'https://…@b.example/'],
    // So an `@` in a path costs the message what stands before it.
    ['https://a.example/team@ops/graph', 'https://…@ops/graph'],
  ])('%j reads %j', (url, shown) => {
    expect(withoutCredentials(url)).toBe(shown);
  });
});
