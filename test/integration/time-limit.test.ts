/**
 * A run that would outlast the function's timeout is stopped by the engine in time to say so:
 * 413 LIMIT_EXCEEDED naming the time limit, never a gateway's empty 503/504. Here every function
 * has 1 s, the least `FUNCTION_TIMEOUT_MS` takes, set as a user of `npm start` sets it, through
 * real HTTP and the local server's engine workers: a small run still answers, and one that writes
 * 200 ticks of 2,000 nodes (some 50 MB of JSON) stops once what it has written would take longer to compress
 * than the time left (80 ms per MB, lib/api/run-deadline.ts), and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED } from '../http/events';
import { post, startTestServer, type TestServer } from './server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'WARN', FUNCTION_TIMEOUT_MS: '1000' });
});

afterAll(() => server.close());

describe('POST /api/engine: a run without time to finish', () => {
  it('answers 413 naming the time limit and what to reduce', async () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => `n${i}`);
    const chain = {
      nodes: ids.map((id, i) => ({
        id,
        load: i === 0 ? 1_000 : 0,
        ...(i % 10 === 9 ? { capacity: 3 } : {}),
      })),
      dependencies: ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id })),
    };
    const answer = await post(
      server.url,
      server.apiKey,
      { mode: 'ticks', ticks: 200, ...chain },
      { headers: { 'accept-encoding': 'br' } },
    );
    expect(answer.status).toBe(413);
    expect(answer.json.error.code).toBe('LIMIT_EXCEEDED');
    // Stopped by what it had written (on a machine slow enough, by the time itself first): the
    // message says which, with the function's 1 s and what to reduce.
    expect([
      "The run was stopped: its answer grew larger than can be compressed and sent within this request's time limit (1 s); ask for fewer ticks or send a smaller structure (the answer returns extra fields on nodes and dependencies as they were sent: leave out any it need not).",
      "The run could not finish within this request's time limit (1 s) and was stopped; ask for fewer ticks or send a smaller structure.",
    ]).toContain(answer.json.error.message);
  });

  // The function keeps back a quarter of so short a time, not the 1.5 s a 15 s one does.
  it('answers a small run in full', async () => {
    const answer = await post(server.url, server.apiKey, { mode: 'ticks', ticks: 5, ...WORKED });
    expect(answer.status).toBe(200);
    expect(answer.json.snapshots).toHaveLength(5);
  });

  it('still answers what runs no engine', async () => {
    const answer = await post(server.url, server.apiKey, { mode: 'simulate', ...WORKED });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('INVALID_MODE');
  });
});
