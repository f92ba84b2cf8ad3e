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

describe('POST /api/engine with loads up to the largest double', () => {
  // Loads, capacities and weights anywhere up to Number.MAX_VALUE: the answer is a payload
  // error naming the load that breaks the total-load rule, or a 200 in which every number
  // is a number (JSON prints Infinity and NaN as null, so a null would be an overflow).
  it('never returns a 200 with a non-finite number in it', async () => {
    const big = fc.oneof(
      fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true }),
      fc.constantFrom(Number.MAX_VALUE, 1e308, 1e300, 5e299, 0, 1),
    );
    const structure = fc.integer({ min: 1, max: 6 }).chain((n) =>
      fc.record({
        mode: fc.constantFrom('analyze', 'tick', 'ticks'),
        nodes: fc.array(
          fc.record({
            load: big,
            capacity: fc.option(
              big.filter((c) => c > 0),
              { nil: undefined },
            ),
          }),
          {
            minLength: n,
            maxLength: n,
          },
        ),
        dependencies: fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1) }), { maxLength: 12 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(structure, async ({ mode, nodes, dependencies }) => {
        const body = {
          mode,
          ticks: 5,
          nodes: nodes.map((node, i) => ({ id: `n${i}`, ...node })),
          dependencies: dependencies.map(({ from, to }) => ({ from: `n${from}`, to: `n${to}` })),
        };
        const answer = await post(server.url, server.apiKey, body);
        if (answer.status !== 200) {
          expect(answer.json.error.code).toBe('PAYLOAD_ERROR');
          expect(answer.json.error.message).toMatch(/^nodes\[\d+\]\.load: .*1e\+300/);
          return;
        }
        const results = answer.json.engine
          ? [answer.json.engine]
          : (answer.json.snapshots ?? [answer.json.snapshot]);
        for (const result of results) {
          for (const node of result.nodes) {
            for (const field of ['load', 'inflow', 'outflow', 'pressure'])
              expect(node[field]).toBeTypeOf('number');
          }
          for (const dependency of result.dependencies) expect(dependency.flow).toBeTypeOf('number');
          if (result.origin !== null) expect(result.origin.share).toBeTypeOf('number');
        }
      }),
      { numRuns: 150, interruptAfterTimeLimit: 15_000 },
    );
  });
});
