import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createEngineFunction } from '../../../functions/engine/engine-function';
import { readLimits } from '../../../lib/config/limits';
import type { HttpResult } from '../../../lib/http/responses';
import { createLogger } from '../../../lib/logging';
import { captureOutput, httpEvent, logLines, WORKED } from '../../http/events';

const KEY = 'sbe_enginehandlertestkey0123456789abcdef';

/** The handler with a one-key verifier and small limits: 2,000-byte bodies, 50 nodes, 64 KiB responses. */
const handler = createEngineFunction({
  verifyApiKey: async (key) => (key === KEY ? { id: 'key-1', owner: 'owner-1' } : undefined),
  systems: { get: async () => undefined, getRecord: async () => undefined },
  limits: readLimits({ MAX_BODY_BYTES: '2000', MAX_NODES: '50', MAX_RESPONSE_BYTES: String(64 * 1024) }),
  logger: createLogger({ env: {} }),
});

interface Call {
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  /** Lambda's clock: the milliseconds left each time it is asked. None: a context without one. */
  remainingTimeMs?: () => number;
}

async function call({ body, key = KEY, headers = {}, isBase64Encoded, remainingTimeMs }: Call) {
  const allHeaders = { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers };
  const event = httpEvent({ body, headers: allHeaders, ...(isBase64Encoded ? { isBase64Encoded } : {}) });
  const context = remainingTimeMs === undefined ? {} : { getRemainingTimeInMillis: remainingTimeMs };
  const { result, output } = await captureOutput(
    () => handler(event as never, context as never) as Promise<HttpResult>,
  );
  const text = result.isBase64Encoded
    ? gunzipSync(Buffer.from(result.body, 'base64')).toString()
    : result.body;
  return { result, json: JSON.parse(text), logs: logLines(output) };
}

const HUGE_BROKEN = `{"mode":"analyze",${' '.repeat(3000)}`;

describe('engine handler: the contract order of checks', () => {
  // Each case fails several checks at once; the earliest check in the contract's order decides.
  // Columns: the case, the status and code it must get, and last the call, which is not in the title.
  it.each<[string, number, string, Call]>([
    ['no key, oversized broken body', 401, 'MISSING_API_KEY', { key: null, body: HUGE_BROKEN }],
    [
      'unknown key, oversized broken body',
      403,
      'INVALID_API_KEY',
      { key: 'sbe_someoneelsesomeoneelsesomeoneelse00', body: HUGE_BROKEN },
    ],
    ['oversized broken body', 413, 'LIMIT_EXCEEDED', { body: HUGE_BROKEN }],
    ['broken JSON', 500, 'PAYLOAD_ERROR', { body: '{"mode":"analyze",' }],
    ['an array body', 500, 'PAYLOAD_ERROR', { body: [1, 2] }],
    [
      'bad mode and a dangling dependency',
      400,
      'INVALID_MODE',
      { body: { mode: 'simulate', nodes: [], dependencies: [{ from: 'x', to: 'y' }] } },
    ],
    ['bad ticks and no structure', 400, 'INVALID_TICKS', { body: { mode: 'ticks', ticks: 0 } }],
    [
      'too many nodes, one with a negative load',
      500,
      'PAYLOAD_ERROR',
      {
        body: {
          mode: 'analyze',
          nodes: Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, load: i === 59 ? -1 : 1 })),
          dependencies: [],
        },
      },
    ],
    [
      'too many nodes',
      413,
      'LIMIT_EXCEEDED',
      {
        body: {
          mode: 'analyze',
          nodes: Array.from({ length: 60 }, (_, i) => ({ id: `n${i}` })),
          dependencies: [],
        },
      },
    ],
  ])('%s -> %i %s', async (_name, status, code, request) => {
    const { result, json } = await call(request);
    expect(result.statusCode).toBe(status);
    expect(json.error.code).toBe(code);
    expect(typeof json.error.message).toBe('string');
    expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('engine handler: answers', () => {
  // The worked example through the whole chain, body sent base64 as curl -d would.
  it('analyzes the worked example from a base64 body', async () => {
    const body = Buffer.from(JSON.stringify({ mode: 'analyze', ...WORKED })).toString('base64');
    const { result, json, logs } = await call({ body, isBase64Encoded: true });
    expect(result.statusCode).toBe(200);
    expect(json.mode).toBe('analyze');
    expect(json.engine.primaryBlockage).toBe('B');
    expect(logs).toEqual([
      expect.objectContaining({
        message: 'request',
        status: 200,
        keyId: 'key-1',
        mode: 'analyze',
        nodeCount: 3,
        dependencyCount: 3,
      }),
    ]);
  });

  // 100 ticks are ~63 KB once escaped: over 64 KiB minus the envelope margin as text, fine gzipped.
  it('compresses a result that would not fit, and refuses it with advice when it cannot compress', async () => {
    const body = { mode: 'ticks', ticks: 100, ...WORKED };
    const plain = await call({ body });
    expect(plain.result.statusCode).toBe(413);
    expect(plain.json.error.code).toBe('LIMIT_EXCEEDED');
    expect(plain.json.error.message).toContain('Accept-Encoding: br, gzip');

    const gzipped = await call({ body, headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.result.statusCode).toBe(200);
    expect(gzipped.result.headers['content-encoding']).toBe('gzip');
    expect(gzipped.json.snapshots).toHaveLength(100);
    expect(gzipped.logs[0]).toMatchObject({ status: 200, contentEncoding: 'gzip', ticks: 100 });
  });

  // 300 ticks of three nodes have a floor of some 100 KB: more than 64 KiB uncompressed whatever
  // the run finds, so a client that takes no compression is told at once; one that does gets it.
  it('refuses before the run an answer that cannot fit uncompressed, naming what to send', async () => {
    const body = { mode: 'ticks', ticks: 300, ...WORKED };
    const plain = await call({ body });
    expect(plain.result.statusCode).toBe(413);
    expect(plain.json.error.message).toMatch(
      /^The answer would be at least 1\d\d KB of JSON, more than the response limit of 65536 bytes, so it was not computed\. Send `Accept-Encoding: br, gzip`/,
    );
    expect(plain.logs[0]).toMatchObject({ status: 413, mode: 'ticks', ticks: 300, nodeCount: 3 });

    const gzipped = await call({ body, headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.result.statusCode).toBe(200);
    expect(gzipped.json.snapshots).toHaveLength(300);
  });

  // 401 carries the challenge header, with header names in any case on the way in.
  it('sends WWW-Authenticate: Bearer on 401', async () => {
    const { result } = await call({ key: null, headers: { AUTHORIZATION: 'Basic abc' }, body: {} });
    expect(result.statusCode).toBe(401);
    expect(result.headers['www-authenticate']).toBe('Bearer');
  });
});

describe("engine handler: a run that would outlast the function's timeout", () => {
  /** A clock that starts with `startMs` left and loses `stepMs` each time it is asked. */
  const fallingClock = (startMs: number, stepMs: number) => {
    let left = startMs + stepMs;
    return () => {
      left -= stepMs;
      return left;
    };
  };

  // Lambda would end the function without a body: the run stops itself and says why.
  it('stops between ticks and answers 413 naming the time limit and what to reduce', async () => {
    const body = { mode: 'ticks', ticks: 100, ...WORKED };
    const { result, json, logs } = await call({ body, remainingTimeMs: fallingClock(15_000, 1_000) });
    expect(result.statusCode).toBe(413);
    expect(json).toEqual({
      error: {
        code: 'LIMIT_EXCEEDED',
        message:
          "The run could not finish within this request's time limit (15 s) and was stopped; ask for fewer ticks or send a smaller structure.",
      },
    });
    expect(logs).toEqual([
      expect.objectContaining({ status: 413, errorCode: 'LIMIT_EXCEEDED', mode: 'ticks', ticks: 100 }),
    ]);
  });

  // A request with just over a second keeps back a quarter of it (300 ms): its clock falls
  // 300 ms at each reading, so the run stops once a reading is at or below that.
  it('stops a compare when the request arrives with little time left', async () => {
    const body = { mode: 'analyze', compare: true, scenario: { scale: 2 }, ...WORKED };
    const { result, json } = await call({ body, remainingTimeMs: fallingClock(1_200, 300) });
    expect(result.statusCode).toBe(413);
    expect(json.error.message).toBe(
      'The run could not finish within this request\'s time limit (1.2 s) and was stopped; send a smaller structure or leave out "compare".',
    );
  });

  // The limit is the function's time as the request began, read before the body is parsed:
  // a request whose body took 12 of its 15 s to parse (the clock reads 15 s, then 3 s) is told
  // of 15 s, not 3, and keeps back the full 1.5 s for writing its answer, not a quarter of 3 s.
  it('names the time the request had as it began, not what was left when the run began', async () => {
    const readings = [15_000, 3_000, 1_400];
    let read = 0;
    const clock = () => readings[Math.min(read++, readings.length - 1)]!;
    const { result, json } = await call({
      body: { mode: 'ticks', ticks: 5, ...WORKED },
      remainingTimeMs: clock,
    });
    expect(result.statusCode).toBe(413);
    expect(json.error.message).toBe(
      "The run could not finish within this request's time limit (15 s) and was stopped; ask for fewer ticks or send a smaller structure.",
    );
  });

  it('answers as without a clock when there is time enough', async () => {
    const body = { mode: 'ticks', ticks: 20, ...WORKED };
    const timed = await call({ body, remainingTimeMs: fallingClock(15_000, 1) });
    const untimed = await call({ body });
    expect(timed.result.statusCode).toBe(200);
    expect(timed.result.body).toBe(untimed.result.body);
  });
});
