import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED } from '../http/events';
import { type Answer, post, startTestServer, type TestServer } from './server';

/** What the contract allows for a request with a valid key: status → codes (null: a 200 answer). */
const CONTRACT: Record<number, ReadonlyArray<string | null>> = {
  200: [null],
  400: ['INVALID_MODE', 'INVALID_TICKS'],
  413: ['LIMIT_EXCEEDED'],
  500: ['PAYLOAD_ERROR', 'ENGINE_ERROR'],
};

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    MAX_BODY_BYTES: '65536',
    MAX_NODES: '50',
    MAX_TICKS: '20',
    LOG_LEVEL: 'WARN',
  });
});

afterAll(() => server.close());

function assertWithinContract(answer: Answer): void {
  const allowed = CONTRACT[answer.status];
  expect(allowed, `status ${answer.status}: ${answer.text.slice(0, 200)}`).toBeDefined();
  expect(answer.json, `not JSON: ${answer.text.slice(0, 200)}`).toBeTypeOf('object');
  if (answer.status === 200) {
    expect(['analyze', 'tick', 'ticks']).toContain(answer.json.mode);
    return;
  }
  expect(Object.keys(answer.json)).toEqual(['error']);
  expect(allowed).toContain(answer.json.error.code);
  expect(typeof answer.json.error.message).toBe('string');
  expect(answer.json.error.message.length).toBeGreaterThan(0);
  expect(answer.text).not.toMatch(/\n\s+at /);
}

const CONTAINERS = ['payload', 'system', 'record', 'data', 'graph'] as const;
type Json = unknown;

/** The worked example, bent in one to three random places: the shapes a confused caller sends. */
const mutatedWorkedExample: fc.Arbitrary<Json> = fc
  .record({
    mode: fc.oneof(fc.constantFrom('analyze', 'tick', 'ticks'), fc.jsonValue()),
    ticks: fc.option(fc.oneof(fc.integer({ min: -5, max: 30 }), fc.jsonValue()), { nil: undefined }),
    container: fc.option(fc.constantFrom(...CONTAINERS), { nil: undefined }),
    edits: fc.array(
      fc.record({
        list: fc.constantFrom('nodes', 'dependencies'),
        index: fc.nat(4),
        field: fc.constantFrom('id', 'load', 'capacity', 'from', 'to', 'weight', 'extra'),
        value: fc.oneof(fc.jsonValue(), fc.constantFrom('A', 'B', 'C', 'Z', -1, 0, 1e308, '')),
        remove: fc.boolean(),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ mode, ticks, container, edits }) => {
    const structure = structuredClone(WORKED) as unknown as Record<string, Array<Record<string, Json>>>;
    for (const edit of edits) {
      const list = structure[edit.list]!;
      const element = list[edit.index % (list.length + 1)];
      if (element === undefined) list.push({ [edit.field]: edit.value });
      else if (edit.remove) delete element[edit.field];
      else element[edit.field] = edit.value;
    }
    const envelope: Record<string, Json> = { mode, ...(ticks === undefined ? {} : { ticks }) };
    return container === undefined ? { ...envelope, ...structure } : { ...envelope, [container]: structure };
  });

describe('POST /api/engine with a valid key, any body', () => {
  // Whatever arrives, the answer is one of the contract's rows with a JSON error body, and the
  // server is still there to answer the next request.
  it('never answers outside the contract table', async () => {
    const body = fc.oneof(
      { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: fc.string() },
      { weight: 4, arbitrary: mutatedWorkedExample.map((value) => JSON.stringify(value)) },
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        assertWithinContract(await post(server.url, server.apiKey, text));
      }),
      { numRuns: 400, interruptAfterTimeLimit: 15_000 },
    );
    // Still serving after all that.
    const after = await post(server.url, server.apiKey, { mode: 'analyze', ...WORKED });
    expect(after.status).toBe(200);
  });
});
