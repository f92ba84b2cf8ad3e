/**
 * A run that would outlast the function's timeout is stopped by the engine in time to say so:
 * 413 LIMIT_EXCEEDED naming the time limit, never a gateway's empty 503/504. Here every function
 * has 1.4 s, less than the 1.5 s the engine keeps back for writing its answer, so every run stops
 * at its first checkpoint, through real HTTP and the local server's engine workers. The time is
 * set as a user of `npm start` sets it, `FUNCTION_TIMEOUT_MS`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'WARN', FUNCTION_TIMEOUT_MS: '1400' });
});

afterAll(() => server.close());

describe('POST /api/engine: a run without time to finish', () => {
  it('answers 413 naming the time limit and what to reduce', async () => {
    const answer = await post(server.url, server.apiKey, { mode: 'ticks', ticks: 5, ...WORKED });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({
      error: {
        code: 'LIMIT_EXCEEDED',
        message:
          "The run could not finish within this request's time limit (1 s) and was stopped; ask for fewer ticks or send a smaller structure.",
      },
    });
  });

  it('still answers what runs no engine', async () => {
    const answer = await post(server.url, server.apiKey, { mode: 'simulate', ...WORKED });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('INVALID_MODE');
  });
});
