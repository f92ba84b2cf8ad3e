import { describe, expect, it } from 'vitest';
import { type AllowedHosts, isAllowlistedHost, readConnectAllowHosts } from '../../lib/outbound/allow-hosts';
import { OutboundError } from '../../lib/outbound/errors';
import { checkOutboundUrl, type UrlSource } from '../../lib/outbound/url-rules';

const NO_ALLOWLIST: AllowedHosts = new Set();

function refusalOf(
  url: string,
  allowHosts: AllowedHosts = NO_ALLOWLIST,
  source: UrlSource = 'request',
): OutboundError | undefined {
  try {
    checkOutboundUrl(url, allowHosts, source);
    return undefined;
  } catch (error) {
    if (error instanceof OutboundError) return error;
    throw error;
  }
}

describe('schemes', () => {
  // Only web URLs: no local files, no legacy protocols that can talk to mail or cache servers.
  it.each([
    'ftp://example.com/graph.json',
    'file:///etc/passwd',
    'gopher://example.com:70/_SET%20key',
    'javascript:alert(1)',
    'data:application/json,{}',
    'ws://example.com/',
  ])('refuses %s', (url) => {
    const error = refusalOf(url);
    expect(error?.code).toBe('URL_NOT_ALLOWED');
    expect(error?.message).toContain('only those can be fetched');
  });

  // The caller is told which scheme they sent; a redirect's scheme was written by the remote
  // server, and is not repeated.
  it('names the scheme of the caller’s URL, not of a redirect', () => {
    expect(refusalOf('ftp://example.com/')?.message).toBe(
      'The URL is not an http: or https: URL (it uses "ftp:"); only those can be fetched.',
    );
    expect(refusalOf('ftp://example.com/', NO_ALLOWLIST, 'redirect')?.message).toBe(
      'The URL the server redirected to is not an http: or https: URL; only those can be fetched.',
    );
  });

  // Web URLs pass, whatever the case of the scheme.
  it.each(['http://example.com/graph', 'https://example.com/graph', 'HTTPS://EXAMPLE.COM/'])(
    'allows %s',
    (url) => {
      expect(refusalOf(url)).toBeUndefined();
    },
  );
});

describe('not a URL', () => {
  // Relative paths, empty strings and junk are not absolute URLs.
  it.each(['', 'not a url', '/relative/path', 'example.com/graph', 'http://'])('refuses %j', (url) => {
    const error = refusalOf(url);
    expect(error?.code).toBe('URL_NOT_ALLOWED');
    expect(error?.message).toBe(
      'The URL is not a valid absolute URL; send one such as https://api.example.com/graph.',
    );
  });
});

describe('credentials in the URL', () => {
  // user:pass@ would be sent as Basic auth and can disguise the real host; the token is the way to authenticate.
  it.each(['http://user:hunter2@example.com/', 'http://user@example.com/', 'https://:hunter2@example.com/'])(
    'refuses %s',
    (url) => {
      const error = refusalOf(url);
      expect(error?.code).toBe('URL_NOT_ALLOWED');
      expect(error?.message).toContain('user name or password');
      expect(error?.message).not.toContain('hunter2');
    },
  );

  // Even an allowlisted host may not carry credentials.
  it('refuses them for allowlisted hosts too', () => {
    expect(refusalOf('http://u:p@127.0.0.1:8080/', new Set(['127.0.0.1']))?.code).toBe('URL_NOT_ALLOWED');
  });

  // The URL is kept with the system and shown on every read: a token in its query would be
  // stored in plain text. Named by the parameter, never its value; the token goes as the token.
  it.each([
    ['https://api.example.com/graph?access_token=hunter2', 'access_token'],
    ['https://api.example.com/graph?lookback=3600&API_KEY=hunter2', 'API_KEY'],
    ['https://api.example.com/graph?token=hunter2', 'token'],
    // OAuth's implicit flow hands out a token in the fragment: never sent, but kept and shown.
    ['https://api.example.com/graph#access_token=hunter2&token_type=bearer', 'access_token'],
    // Single-page apps route in the fragment: a query-like part after a path, or `;` pairs.
    ['https://api.example.com/graph#/callback?access_token=hunter2', 'access_token'],
    ['https://api.example.com/graph#!/cb?Token=hunter2', 'Token'],
    ['https://api.example.com/graph#state=1;token=hunter2', 'token'],
  ])('refuses %s, naming its credential parameter', (url, name) => {
    const error = refusalOf(url);
    expect(error?.code).toBe('URL_NOT_ALLOWED');
    expect(error?.message).toBe(
      `The URL carries a credential in its query or fragment ("${name}"); remove it and send it as the token instead: the URL is kept with the system and shown on every read.`,
    );
    expect(error?.message).not.toContain('hunter2');
  });

  // A signed URL (S3's presigned GET) carries no standing credential; a redirect's URL is not kept.
  it('lets through a signed URL, and a redirect that carries a token', () => {
    expect(
      refusalOf('https://bucket.s3.amazonaws.com/graph.json?X-Amz-Signature=abc&X-Amz-Expires=300'),
    ).toBeUndefined();
    expect(
      refusalOf('https://cdn.example.com/graph.json?token=abc', NO_ALLOWLIST, 'redirect'),
    ).toBeUndefined();
    // Nor a URL a system kept already (a refresh): refused, a system stored before the rule could
    // only be deleted. Every other rule still holds for it.
    expect(
      refusalOf('https://api.example.com/graph?access_token=abc', NO_ALLOWLIST, 'stored'),
    ).toBeUndefined();
    expect(refusalOf('http://127.0.0.1:8080/graph?access_token=abc', NO_ALLOWLIST, 'stored')?.code).toBe(
      'URL_NOT_ALLOWED',
    );
  });
});

describe('ports', () => {
  // SSH, SMTP, DNS below 1024, and Redis and memcached (which run HTTP lines as commands) above it.
  it.each(['22', '25', '53', '0', '1023', '6379', '11211'])('refuses port %s', (port) => {
    const error = refusalOf(`http://example.com:${port}/`);
    expect(error?.code).toBe('URL_NOT_ALLOWED');
    expect(error?.message).toContain(`uses port ${port}`);
  });

  // The web ports, spelled or implied, and every unprivileged port.
  it.each([
    'http://example.com/',
    'http://example.com:80/',
    'https://example.com:443/',
    'https://example.com:80/',
    'http://example.com:443/',
    'http://example.com:1024/',
    'http://example.com:8080/',
    'http://example.com:65535/',
  ])('allows %s', (url) => {
    expect(refusalOf(url)).toBeUndefined();
  });

  // A local stand-in for the external API may listen anywhere.
  it('lets allowlisted hosts use any port', () => {
    expect(refusalOf('http://127.0.0.1:22/', new Set(['127.0.0.1']))).toBeUndefined();
  });
});

describe('redirect targets', () => {
  // A Location header was written by the remote server: the message repeats nothing from it.
  it('describes a refused redirect without repeating its URL', () => {
    const error = refusalOf('http://sekrit.localhost/', NO_ALLOWLIST, 'redirect');
    expect(error?.message).toBe(
      'The URL the server redirected to names this machine; only public hosts can be fetched.',
    );
  });

  // The caller's own URL is named so they can see which part is wrong.
  it('names the host of the caller’s own URL', () => {
    expect(refusalOf('http://10.1.2.3/')?.message).toBe(
      'The URL\'s host "10.1.2.3" is a private network address; only public addresses can be fetched.',
    );
  });
});

describe('CONNECT_ALLOW_HOSTS', () => {
  const allowed = (value: string | undefined, url: string) =>
    refusalOf(url, readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: value })) === undefined;

  // Unset: nothing is exempt; loopback stays refused.
  it('is empty by default', () => {
    expect(readConnectAllowHosts({}).size).toBe(0);
    expect(allowed(undefined, 'http://127.0.0.1:8080/')).toBe(false);
  });

  // A test lists its loopback stand-in, by address and by name, in any case, spaces around commas.
  it('exempts listed hosts, matched case-insensitively', () => {
    const value = ' 127.0.0.1 , LocalHost ';
    expect(allowed(value, 'http://127.0.0.1:9000/')).toBe(true);
    expect(allowed(value, 'http://localhost:9000/')).toBe(true);
    expect(allowed(value, 'http://LOCALHOST.:9000/')).toBe(true);
    expect(allowed(value, 'http://127.0.0.2:9000/')).toBe(false);
    expect(allowed(value, 'http://foo.localhost:9000/')).toBe(false);
  });

  // Entries are read the way URLs are, so `127.1` and `::1` match the URL parser's spelling.
  it('normalizes entries like URL hosts', () => {
    expect(allowed('127.1', 'http://127.0.0.1:9000/')).toBe(true);
    expect(allowed('::1', 'http://[::1]:9000/')).toBe(true);
    expect(allowed('[::1]', 'http://[0:0::1]:9000/')).toBe(true);
  });

  // A socket looks up an IPv6 literal bare (`::1`), a URL spells it bracketed (`[::1]`): both match.
  it('matches a bare IPv6 address against a listed one', () => {
    const hosts = readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: '::1' });
    expect(isAllowlistedHost('::1', hosts)).toBe(true);
    expect(isAllowlistedHost('[::1]', hosts)).toBe(true);
    expect(isAllowlistedHost('::2', hosts)).toBe(false);
  });

  // The mistake is named, with what to write instead.
  it('says what an entry may be', () => {
    expect(() => readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: 'localhost:8080' })).toThrow(
      'CONNECT_ALLOW_HOSTS entry "localhost:8080" is not a host name or IP address; ' +
        'list hosts only, without scheme, port or path (every port is allowed)',
    );
  });

  // Set but empty, an empty entry, or anything beyond a host is a configuration mistake.
  it.each([
    ['', 'set but empty'],
    ['127.0.0.1,,localhost', 'has an empty entry'],
    ['127.0.0.1,', 'has an empty entry'],
    ['localhost:8080', 'is not a host name or IP address'],
    ['http://localhost', 'is not a host name or IP address'],
    ['localhost/api', 'is not a host name or IP address'],
    ['user@localhost', 'is not a host name or IP address'],
    [':hunter2@localhost', 'is not a host name or IP address'],
    ['localhost?x=1', 'is not a host name or IP address'],
    ['localhost#top', 'is not a host name or IP address'],
    ['bad host', 'is not a host name or IP address'],
  ])('refuses %j', (value, message) => {
    expect(() => readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: value })).toThrow(message);
  });
});
