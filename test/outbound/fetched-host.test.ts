import { describe, expect, it } from 'vitest';
import { fetchedHostOf } from '../../lib/outbound/fetched-host';

describe('fetchedHostOf', () => {
  // The request line says where connect fetched from, and nothing a caller could have hidden in
  // the rest of the URL: the path, the query and the user info stay out.
  it('keeps the host and drops the path, query and user info', () => {
    expect(fetchedHostOf({ url: 'https://user:pw@API.Example.com/v1/graph?token=s3cret#x' })).toBe(
      'api.example.com',
    );
  });

  // A port is part of where the fetch went; the scheme's own port is not written out.
  it('keeps a port other than the scheme’s', () => {
    expect(fetchedHostOf({ url: 'http://example.com:8080/x' })).toBe('example.com:8080');
    expect(fetchedHostOf({ url: 'https://example.com:443/x' })).toBe('example.com');
    expect(fetchedHostOf({ url: 'http://[2001:db8::1]:9000/' })).toBe('[2001:db8::1]:9000');
  });

  // The parser's spelling, so one host is one string in the logs however it was written.
  it('normalises the host as the URL parser does', () => {
    expect(fetchedHostOf({ url: 'http://2130706433/' })).toBe('127.0.0.1');
    expect(fetchedHostOf({ url: 'http://bücher.example/' })).toBe('xn--bcher-kva.example');
  });

  // Nothing to read: no body, no url, a url that is not a string or not a URL, or a "host"
  // longer than any DNS name.
  it('gives nothing when there is no host to read', () => {
    const notUrls = [
      undefined,
      null,
      'https://example.com',
      {},
      { url: 42 },
      { url: ['https://example.com/'] },
    ];
    for (const body of [...notUrls, { url: 'not a url' }]) expect(fetchedHostOf(body)).toBeUndefined();
    // 300 characters are logged, 301 are not.
    expect(fetchedHostOf({ url: `https://${'a'.repeat(292)}.example/` })).toHaveLength(300);
    expect(fetchedHostOf({ url: `https://${'a'.repeat(293)}.example/` })).toBeUndefined();
    expect(fetchedHostOf({ url: 'file:///etc/passwd' })).toBeUndefined();
  });
});
