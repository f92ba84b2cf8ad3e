import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../lib/keys';
import { captureOutput, logLines, WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;
let key: string;

// A real server logging at INFO; a key issued the usual way (47 characters, `sbe_` + 43 secret ones).
beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'INFO' });
  key = (await issueApiKey(server.store, { owner: 'log-owner', name: 'logging test' })).key;
});

afterAll(() => server.close());

describe('request logging over real HTTP', () => {
  it('logs each request without the API key, the Authorization header or the body', async () => {
    const secretPart = key.slice('sbe_'.length);
    const marker = 'body-marker-4711';
    const { output } = await captureOutput(async () => {
      // Success, a refused body, a broken body, a bad mode, an unknown key that differs from ours by
      // one character, and a key sent with the wrong scheme.
      await post(server.url, key, { mode: 'analyze', ...WORKED, marker });
      await post(server.url, key, `{"mode":"analyze","marker":"${marker}",`);
      await post(server.url, key, { mode: 'simulate', marker });
      await post(server.url, `${key.slice(0, -1)}x`, { mode: 'analyze', ...WORKED });
      await post(server.url, null, { mode: 'analyze' }, { headers: { authorization: `Token ${key}` } });
    });

    const requests = logLines(output).filter((line) => line.message === 'request');
    expect(requests.map((line) => line.status)).toEqual([200, 500, 400, 403, 401]);
    expect(requests[0]).toMatchObject({
      route: 'POST /api/engine',
      mode: 'analyze',
      nodeCount: 3,
      dependencyCount: 3,
    });
    expect(typeof requests[0]!.keyId).toBe('string');
    expect(typeof requests[0]!.requestId).toBe('string');
    expect(typeof requests[0]!.durationMs).toBe('number');

    expect(output).not.toContain(key);
    expect(output).not.toContain(secretPart);
    expect(output).not.toContain(secretPart.slice(0, 20));
    expect(output.toLowerCase()).not.toContain('authorization');
    expect(output).not.toContain(marker);
  });

  // Answers the server gives itself are logged like every request.
  it('writes a request line for 404 and 405 answers', async () => {
    const { output } = await captureOutput(async () => {
      await post(server.url, key, {}, { path: '/api/nope' });
      await post(server.url, null, undefined, { path: '/api/engine', method: 'GET' });
    });
    const lines = logLines(output).filter((line) => line.message === 'request');
    expect(lines.map((line) => [line.status, line.errorCode])).toEqual([
      [404, 'NOT_FOUND'],
      [405, 'METHOD_NOT_ALLOWED'],
    ]);
    for (const line of lines) expect(line.requestId).toBeTypeOf('string');
  });
});
