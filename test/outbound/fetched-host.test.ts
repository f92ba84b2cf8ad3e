import { describe, expect, it } from 'vitest';
import { fetchedHostOf } from '../../lib/outbound/fetched-host';

describe('fetchedHostOf', () => {
  // The request line says where connect fetched from, and nothing a caller could have hidden in
  // the rest of the URL: the path, the query and the user info stay out.
  it('keeps the host and drops the path, query and user info', () => {
    expect(fetchedHostOf('https://user:pw@API.Example.com/v1/graph?token=s3cret#x')).toBe('api.example.com');
  });

  // A port is part of where the fetch went; the scheme's own port is not written out.
  it('keeps a port other than the scheme’s', () => {
    expect(fetchedHostOf('http://example.com:8080/x')).toBe('example.com:8080');
    expect(fetchedHostOf('https://example.com:443/x')).toBe('example.com');
    expect(fetchedHostOf('http://[2001:db8::1]:9000/')).toBe('[2001:db8::1]:9000');
  });

  // The parser's spelling, so one host is one string in the logs however it was written.
  it('normalises the host as the URL parser does', () => {
    expect(fetchedHostOf('http://2130706433/')).toBe('127.0.0.1');
    expect(fetchedHostOf('http://bücher.example/')).toBe('xn--bcher-kva.example');
  });

  // Nothing to read: a url that is not a string or not a URL, or a "host" longer than any DNS name.
  it('gives nothing when there is no host to read', () => {
    for (const url of [
      undefined,
      null,
      42,
      ['https://example.com/'],
      { href: 'https://example.com/' },
      'not a url',
    ])
      expect(fetchedHostOf(url)).toBeUndefined();
    // 300 characters are logged, 301 are not.
    expect(fetchedHostOf(`https://${'a'.repeat(292)}.example/`)).toHaveLength(300);
    expect(fetchedHostOf(`https://${'a'.repeat(293)}.example/`)).toBeUndefined();
    // Schemes connect never fetches: their "host" is any text.
    for (const url of [
      'file:///etc/passwd',
      'ftp://intranet.corp/',
      'javascript://alert(1)//',
      'foo://a"b{c}/x',
    ])
      expect(fetchedHostOf(url)).toBeUndefined();
  });
});
