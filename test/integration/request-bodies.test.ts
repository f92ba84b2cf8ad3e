import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS_DIFFERING_IN_INVALID_BYTES, WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;

// The default limits: 6 MiB on the wire, 64 MiB decoded, 100,000 nodes, 500,000 dependencies.
beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'WARN' });
});

afterAll(() => server.close());

const BINARY = { 'content-type': 'application/octet-stream' };

describe('compressed request bodies over HTTP', () => {
  // 500,000 dependencies are ~19 MB of JSON, far over the 6 MiB request limit; gzipped they are
  // well under it, so the dependency limit can actually be reached.
  it('runs the largest structure the limits allow, sent gzipped', async () => {
    const nodeCount = 100_000;
    const nodes = Array.from({ length: nodeCount }, (_, i) =>
      i % 1000 === 0 ? { id: `n${i}`, load: 1 } : { id: `n${i}` },
    );
    const dependencies = Array.from({ length: 500_000 }, (_, e) => ({
      from: `n${e % nodeCount}`,
      to: `n${(e * 7919 + 1) % nodeCount}`,
    }));
    const json = Buffer.from(JSON.stringify({ mode: 'analyze', nodes, dependencies }));
    expect(json.length).toBeGreaterThan(6 * 1024 * 1024);
    const wire = gzipSync(json);
    // Deployed, a binary body travels base64-encoded inside Lambda's 6 MiB event: ~4.5 MB of it.
    expect(wire.length).toBeLessThan(4.5 * 1024 * 1024);

    const uncompressed = await post(server.url, server.apiKey, json);
    expect(uncompressed.status).toBe(413);

    const answer = await post(server.url, server.apiKey, wire, {
      headers: { ...BINARY, 'content-encoding': 'gzip', 'accept-encoding': 'br' },
    });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.json.engine.dependencies).toHaveLength(500_000);
    expect(answer.json.engine.nodes).toHaveLength(nodeCount);
  });

  it('a zip bomb stops at the decoded-size cap with 413', async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20), { level: 9 });
    const answer = await post(server.url, server.apiKey, bomb, {
      headers: { ...BINARY, 'content-encoding': 'gzip' },
    });
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('LIMIT_EXCEEDED');
    expect(answer.json.error.message).toContain('decompresses to more than');
  });

  // 64 KB of gzip that inflate to 3 million `{}` in a node's extra field (9 MB, well under the
  // decoded cap): parsing them would take seconds (22 million took 22 s), so the body is counted
  // first and refused, 413, naming the count; a structure of the same bytes in nodes is run.
  it('a body of millions of empty objects is refused by their count before it is parsed', async () => {
    const objects = new Array(3_000_000).fill('{}').join(',');
    const text = `{"mode":"analyze","nodes":[{"id":"A","load":1,"x":[${objects}]}],"dependencies":[]}`;
    const answer = await post(server.url, server.apiKey, gzipSync(text), {
      headers: { ...BINARY, 'content-encoding': 'gzip' },
    });
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('LIMIT_EXCEEDED');
    expect(answer.json.error.message).toBe(
      'The request body holds more than 2500000 JSON objects and arrays, more than any structure within the limits needs, and parsing them would take too long; send a smaller one.',
    );
    // The same count of braces inside one string is no object at all: taken, and run.
    const quoted = `{"mode":"analyze","nodes":[{"id":"A","load":1,"x":"${'{}'.repeat(3_000_000)}"}],"dependencies":[]}`;
    const taken = await post(server.url, server.apiKey, gzipSync(quoted), {
      headers: { ...BINARY, 'content-encoding': 'gzip' },
    });
    expect(taken.status).toBe(200);
  });

  it('an unknown coding gets 415 with Accept-Encoding, after the key check', async () => {
    const body = JSON.stringify({ mode: 'analyze', ...WORKED });
    const answer = await post(server.url, server.apiKey, body, {
      headers: { ...BINARY, 'content-encoding': 'zstd' },
    });
    expect(answer.status).toBe(415);
    expect(answer.json.error.code).toBe('UNSUPPORTED_CONTENT_ENCODING');
    expect(answer.headers.get('accept-encoding')).toBe('gzip, br, deflate');
    const anonymous = await post(server.url, null, body, {
      headers: { ...BINARY, 'content-encoding': 'zstd' },
    });
    expect(anonymous.status).toBe(401);
  });

  // Sent as application/json, compressed bytes reach the function as text (as API Gateway
  // passes them); the error says what to change.
  it('explains the Content-Type when a compressed body was sent as JSON text', async () => {
    const wire = gzipSync(JSON.stringify({ mode: 'analyze', ...WORKED }));
    const answer = await post(server.url, server.apiKey, wire, { headers: { 'content-encoding': 'gzip' } });
    expect(answer.status).toBe(500);
    expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
    expect(answer.json.error.message).toContain('application/octet-stream');
  });
});

describe('invalid UTF-8 over HTTP', () => {
  // Two ids that differ only in their invalid byte. With application/json the local server
  // hands the body over as text with U+FFFD for each bad byte, as API Gateway does; without
  // a text type, as base64. Either way the answer is the same: not valid UTF-8 (never a
  // "duplicate id" from two replaced bytes colliding).
  it.each([['application/json'], ['application/octet-stream'], ['']])(
    'answers 500 PAYLOAD_ERROR "not valid UTF-8" with Content-Type %j',
    async (contentType) => {
      const answer = await post(server.url, server.apiKey, IDS_DIFFERING_IN_INVALID_BYTES, {
        headers: { 'content-type': contentType },
      });
      expect(answer.status).toBe(500);
      expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
      expect(answer.json.error.message).toMatch(/^The request body is not valid UTF-8/);
    },
  );
});
