/**
 * The user's use cases without HTTP: connect (fetch, check, store, keep the compiled structure),
 * list/get/delete systems and create/list/revoke keys, on a real DynamoDB API (dynalite) and an
 * external API on 127.0.0.1. Each failure comes out as the contract's `ApiError`.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConnectRequest } from '../../lib/api/connect-request';
import { ApiError } from '../../lib/api/errors';
import { compileWithSettings } from '../../lib/api/settings-fit';
import { type ConnectedSystem, createConnectSystem, type DryRunAnswer } from '../../lib/app/connect-system';
import { createCreateKey } from '../../lib/app/create-key';
import { createDeleteSystem } from '../../lib/app/delete-system';
import { createGetSystem } from '../../lib/app/get-system';
import { createListKeys } from '../../lib/app/list-keys';
import { createListSystems } from '../../lib/app/list-systems';
import { createRefreshSystem } from '../../lib/app/refresh-system';
import { createRegisterSystem } from '../../lib/app/register-system';
import { createRevokeKey } from '../../lib/app/revoke-key';
import { createRunEngine } from '../../lib/app/run-engine';
import { createUpdateSettings } from '../../lib/app/update-settings';
import { readLimits } from '../../lib/config/limits';
import { analyze, PayloadError, withStopCheck } from '../../lib/engine';
import { DynamoApiKeyStore } from '../../lib/keys';
import { readConnectAllowHosts } from '../../lib/outbound/allow-hosts';
import { CompiledStructureCache, DynamoSystemStore, SystemChangedError } from '../../lib/systems';
import { generate, toJaeger, toOtlp, workedExample } from '../formats/spans/traces';
import { useFreshTable } from '../helpers/dynalite';
import { WORKED } from '../http/events';
import { type FakeApi, reply, startFakeApi } from '../outbound/fake-api';

const table = useFreshTable();
const limits = readLimits({});
const outbound = {
  allowHosts: readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: '127.0.0.1' }),
  // Answers every name with loopback only, so no test can reach a real host.
  resolveHost: async () => [{ address: '127.0.0.1', family: 4 as const }],
  deadlineMs: 2000,
};

const apis: FakeApi[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.close()));
});

async function externalApi(body: unknown, status = 200): Promise<FakeApi> {
  const api = await startFakeApi(reply(JSON.stringify(body), { 'content-type': 'application/json' }, status));
  apis.push(api);
  return api;
}

function systemsStore() {
  return new DynamoSystemStore({ doc: table.doc, tableName: table.tableName });
}

/** A registration's answer (not a dry run's). */
function registered(answer: ConnectedSystem | DryRunAnswer): ConnectedSystem {
  if ('dryRun' in answer) throw new Error('expected a registration, got a dry run');
  return answer;
}

/** The contract's error a use case threw: its code and message. */
async function contractErrorOf(work: Promise<unknown>): Promise<ApiError> {
  const error = await work.then(
    () => {
      throw new Error('expected an ApiError');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** An external API whose answer the test changes between calls. */
async function changingApi(first: unknown) {
  let body = JSON.stringify(first);
  let status = 200;
  const api = await startFakeApi((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  });
  apis.push(api);
  return {
    api,
    answer: (next: unknown, nextStatus = 200) => {
      body = JSON.stringify(next);
      status = nextStatus;
    },
  };
}

describe('connect a system', () => {
  // Registering compiles the structure once; the first engine run on it starts from that
  // compiled form (no read of the stored structure at all) and answers as an inline run does.
  it('stores the structure and keeps its compiled form for the first run', async () => {
    const api = await externalApi(WORKED);
    const systems = systemsStore();
    const cache = new CompiledStructureCache(64 * 1024 * 1024);
    const connect = createConnectSystem({ systems, limits, outbound, cache });

    const record = registered(await connect('alice', { name: ' worked ', url: `${api.origin}/graph` }));
    expect(record).toMatchObject({ name: 'worked', nodes: 3, dependencies: 3, url: `${api.origin}/graph` });
    const storedRecord = await systems.getRecord('alice', record.id);
    expect(cache.get(storedRecord!.sha256)).toBeDefined();

    let structureReads = 0;
    const counting = {
      getRecord: systems.getRecord.bind(systems),
      get: (owner: string, id: string) => {
        structureReads++;
        return systems.get(owner, id);
      },
    };
    const run = createRunEngine({ limits, systems: counting, cache });
    const stored = await run({ body: { mode: 'analyze', systemId: record.id }, owner: 'alice' });
    const inline = await createRunEngine({ limits })({ body: { mode: 'analyze', ...WORKED } });
    expect(stored.json).toBe(inline.json);
    expect(structureReads).toBe(0);
  });

  // A dry run reads the answer exactly as a registration would and stores nothing.
  it('answers a dry run with what it found and the engine summary, storing nothing', async () => {
    const open = {
      nodes: [
        { id: 'F', arrival: 10, fanout: true },
        { id: 'B', capacity: 15, exit: 1 },
      ],
      dependencies: [{ from: 'F', to: 'B', weight: 2 }],
    };
    const api = await externalApi(open);
    const systems = systemsStore();
    const answer = await createConnectSystem({ systems, limits, outbound })('alice', {
      name: 'try',
      url: api.origin,
      dryRun: true,
    });
    expect(answer).toEqual({
      dryRun: true,
      format: 'native',
      unit: 'as-sent',
      nodes: 2,
      dependencies: 1,
      entries: ['F'],
      entryCount: 1,
      warnings: [],
      analysis: {
        primaryBlockage: 'B',
        origin: { id: 'F', load: 0, arrival: 10, contribution: 20, share: 1 },
        trace: ['F', 'B'],
        headroom: { scale: 0.75, node: 'B' },
        bottlenecks: [{ node: 'B', scale: 0.75, utilization: 20 / 15 }],
      },
    });
    expect((await systems.list('alice', {})).systems).toEqual([]);

    // With a service time and an SLO given as settings, the summary has the latency headroom:
    // B (one server of 0.05 s, 20 calls a second at scale s) answers in 0.05 / (1 − s) s, twice
    // per request: 2 × 0.05 / (1 − s) = 0.2 at s = 0.5.
    const timed = await createConnectSystem({ systems, limits, outbound })('alice', {
      name: 'try',
      url: api.origin,
      dryRun: true,
      settings: { nodes: { B: { capacity: 20, serviceTime: 0.05, servers: 1 }, F: { slo: 0.2 } } },
    });
    expect((timed as DryRunAnswer).analysis.latencyHeadroom).toEqual({
      scale: expect.any(Number),
      node: 'F',
    });
    expect(Math.abs((timed as DryRunAnswer).analysis.latencyHeadroom!.scale - 0.5)).toBeLessThan(1e-8);
    expect(Object.keys((timed as DryRunAnswer).analysis)).toEqual([
      'primaryBlockage',
      'origin',
      'trace',
      'headroom',
      'latencyHeadroom',
      'bottlenecks',
    ]);
  });

  // A run on a stored system stopped for time says what to reduce of it: the system, not a body
  // (there is none to make smaller). 0.5 s left of 15 s, less than the 1.5 s kept to answer.
  it('says to run a smaller system when a run by systemId is stopped for time', async () => {
    const systems = systemsStore();
    const record = registered(
      await createRegisterSystem({ systems, limits })('alice', { name: 'w', document: WORKED }),
    );
    const run = createRunEngine({ limits, systems });
    const stopped = await contractErrorOf(
      run({
        body: { mode: 'ticks', ticks: 5, systemId: record.id },
        owner: 'alice',
        remainingTimeMs: () => 500,
        timeLimitMs: 15_000,
      }),
    );
    expect(stopped.code).toBe('LIMIT_EXCEEDED');
    expect(stopped.message).toBe(
      "The run could not finish within this request's time limit (15 s) and was stopped; ask for fewer ticks or run a smaller system.",
    );
  });

  // Refused for size before the run, the same: the system is what to ask less of. A response
  // limit of 16 KiB and a client that takes no compression; 200 ticks of the worked example are larger.
  it('says to ask for a smaller system when the answer of a run by systemId cannot fit', async () => {
    const systems = systemsStore();
    const record = registered(
      await createRegisterSystem({ systems, limits })('alice', { name: 'w', document: WORKED }),
    );
    const small = readLimits({ MAX_RESPONSE_BYTES: String(16 * 1024) });
    const run = createRunEngine({ limits: small, systems });
    const refused = await contractErrorOf(
      run({ body: { mode: 'ticks', ticks: 200, systemId: record.id }, owner: 'alice', acceptedCodings: [] }),
    );
    expect(refused.code).toBe('LIMIT_EXCEEDED');
    expect(refused.message).toMatch(/ask for less: fewer ticks or a smaller system\.$/);
    // The same structure sent in the body asks for a smaller structure.
    const sent = await contractErrorOf(
      run({ body: { mode: 'ticks', ticks: 200, ...WORKED }, acceptedCodings: [] }),
    );
    expect(sent.message).toMatch(/ask for less: fewer ticks or a smaller structure\.$/);
  });

  // The dry run's analysis gives way to the function's time as an engine run does: a clock with
  // 2 of the function's 20 s left (less than the 3 s kept to answer) stops it at its first
  // checkpoint, and the answer is a 413 naming the limit and the structure, never a timeout with
  // no body. With time left, the same dry run answers; a registration does not analyze at all.
  it('stops a dry run whose analysis would outlast the function, with a 413 naming the time limit', async () => {
    const api = await externalApi({
      nodes: [
        { id: 'F', arrival: 10, fanout: true },
        { id: 'B', capacity: 15, exit: 1 },
      ],
      dependencies: [{ from: 'F', to: 'B', weight: 2 }],
    });
    const systems = systemsStore();
    const connect = createConnectSystem({ systems, limits, outbound });
    const body = { name: 'try', url: api.origin, dryRun: true };
    const stopped = await contractErrorOf(
      connect('alice', body, undefined, { remainingMs: () => 2_000, limitMs: 20_000 }),
    );
    expect(stopped.code).toBe('LIMIT_EXCEEDED');
    expect(stopped.message).toBe(
      `The dry run's analysis could not finish within this request's time limit (20 s) and was stopped; the structure read (2 nodes, 1 dependency) takes longer to analyze than this request has. A registration (without "dryRun") does not analyze it, but runs on it have the engine's own time limit, which it may outlast too: read less of the document.`,
    );
    const inTime = await connect('alice', body, undefined, { remainingMs: () => 4_000, limitMs: 20_000 });
    expect((inTime as DryRunAnswer).analysis.primaryBlockage).toBe('B');
    // A function of 3 s whose fetch took 2.3 s of it (the clock reads 3 s at the start and at the
    // fetch, 0.7 s after): the slow API is named, not the structure, which analyzes in no time.
    let reads = 0;
    const slowFetch = await contractErrorOf(
      connect('alice', body, undefined, { remainingMs: () => (reads++ < 2 ? 3_000 : 700), limitMs: 3_000 }),
    );
    expect(slowFetch.code).toBe('LIMIT_EXCEEDED');
    expect(slowFetch.message).toBe(
      "The dry run's analysis could not finish within this request's time limit (3 s) and was stopped: fetching and reading the document (2 nodes, 1 dependency) took 2.3 s of it. Try again when the API answers faster, or read less of the document.",
    );
    expect((await systems.list('alice', {})).systems).toEqual([]);
  });

  // A structure the engine accepts can hold numbers its run cannot answer: db's service time of
  // 1e308 puts its 99th percentile past a double. Runs on the system would answer PAYLOAD_ERROR,
  // so the dry run says so, as a registration says its errors: the setting that gave the number
  // (400), else the element (422). Never a 500 INTERNAL_ERROR.
  it('refuses a dry run whose analysis the engine cannot answer, naming the setting or the element', async () => {
    const heavy = (serviceTime: number) => ({
      nodes: [
        { id: 'api', arrival: 5, fanout: true },
        { id: 'db', serviceTime },
      ],
      dependencies: [{ from: 'api', to: 'db' }],
    });
    const connect = createConnectSystem({ systems: systemsStore(), limits, outbound });
    const inDocument = await contractErrorOf(
      connect('alice', { name: 'x', url: (await externalApi(heavy(1e308))).origin, dryRun: true }),
    );
    expect(inDocument.code).toBe('UPSTREAM_INVALID');
    expect(inDocument.message).toMatch(
      /^The structure read cannot be run by the engine: nodes\[1\]\.serviceTime: /,
    );
    const inSettings = await contractErrorOf(
      connect('alice', {
        name: 'x',
        url: (await externalApi(heavy(0.01))).origin,
        dryRun: true,
        settings: { nodes: { db: { serviceTime: 1e308 } } },
      }),
    );
    expect(inSettings.code).toBe('INVALID_REQUEST');
    expect(inSettings.message).toMatch(
      /^settings\.nodes\.db\.serviceTime: makes the node's \w+ larger than the largest number/,
    );
  });

  it('refuses a format it does not know, naming the field, and a forced format that does not fit', async () => {
    const api = await externalApi(WORKED);
    const connect = createConnectSystem({ systems: systemsStore(), limits, outbound });
    const unknown = await contractErrorOf(
      connect('alice', { name: 'x', url: api.origin, format: 'graphml' }),
    );
    expect(unknown.code).toBe('INVALID_REQUEST');
    expect(unknown.message).toMatch(/^format must be one of "auto", "native", /);
    const forced = await contractErrorOf(connect('alice', { name: 'x', url: api.origin, format: 'xray' }));
    expect(forced.code).toBe('UPSTREAM_INVALID');
    expect(forced.message).toContain('not xray');
  });

  it('names the formats it tried and what the answer looked like when nothing fits', async () => {
    const api = await externalApi({ services: ['a', 'b'], version: 2 });
    const connect = createConnectSystem({ systems: systemsStore(), limits, outbound });
    const error = await contractErrorOf(connect('alice', { name: 'x', url: api.origin }));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toContain('an object with keys "services", "version"');
    expect(error.message).toContain(
      'tried native, dependency-links, cytoscape, node-link, jgf, backstage, xray',
    );
  });

  // The engine's default limits, 100,000 nodes and 500,000 dependencies (~14 MB of JSON, past the
  // 6 MiB an external answer used to be capped at), served gzipped as APIs do.
  it('registers a full-size system from a gzipped answer', async () => {
    const nodes = Array.from({ length: 100_000 }, (_, i) => ({ id: `n${i}` }));
    const dependencies = Array.from({ length: 500_000 }, (_, e) => ({
      from: `n${e % 100_000}`,
      to: `n${(e * 7919 + 13) % 100_000}`,
    }));
    const text = JSON.stringify({ nodes, dependencies });
    expect(text.length).toBeGreaterThan(6 * 1024 * 1024);
    const api = await startFakeApi(
      reply(gzipSync(text), { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
    );
    apis.push(api);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound: { ...outbound, deadlineMs: 15_000 } })('alice', {
        name: 'full size',
        url: api.origin,
      }),
    );
    expect(record).toMatchObject({ nodes: 100_000, dependencies: 500_000, format: 'native' });
    const stored = await systems.get('alice', record.id);
    expect(stored?.structure.dependencies.length).toBe(500_000);
  });

  it('refuses an answer that is not a structure with UPSTREAM_INVALID naming the element, storing nothing', async () => {
    const api = await externalApi({ nodes: [{ id: 'A' }], dependencies: [{ from: 'A', to: 'Z' }] });
    const systems = systemsStore();
    const connect = createConnectSystem({ systems, limits, outbound });

    const error = await contractErrorOf(connect('alice', { name: 'bad', url: api.origin }));
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toContain('dependencies[0].to');
    expect((await systems.list('alice', {})).systems).toEqual([]);
  });

  it('answers a refused body with INVALID_REQUEST naming the field, and never repeats the token', async () => {
    const connect = createConnectSystem({ systems: systemsStore(), limits, outbound });

    const badName = await contractErrorOf(connect('alice', { name: '', url: 'https://example.com' }));
    expect(badName.code).toBe('INVALID_REQUEST');
    expect(badName.message).toMatch(/^name /);

    const badToken = await contractErrorOf(
      connect('alice', { name: 'x', url: 'https://example.com', auth: { token: 'has a space' } }),
    );
    expect(badToken.message).toMatch(/^auth\.token /);
    expect(badToken.message).not.toContain('has a space');

    // The token sent as `auth` itself, not as `{ token }`: the rule is named, the value is not (it
    // was repeated, up to 40 characters of it). A refresh's body reads it the same way.
    const bare = await contractErrorOf(
      connect('alice', { name: 'x', url: 'https://example.com', auth: 'SECRET-TOKEN-123' }),
    );
    expect(bare.message).toMatch(/^auth must be an object/);
    expect(JSON.stringify(bare)).not.toContain('SECRET');
    const refresh = createRefreshSystem({ systems: systemsStore(), limits, outbound });
    const refreshed = await contractErrorOf(refresh('alice', 'none', { auth: 'SECRET-TOKEN-123' }));
    expect(refreshed.code).toBe('INVALID_REQUEST');
    expect(JSON.stringify(refreshed)).not.toContain('SECRET');
  });

  it('maps an address the guard refuses to URL_NOT_ALLOWED and an upstream 500 to UPSTREAM_ERROR', async () => {
    const connect = createConnectSystem({ systems: systemsStore(), limits, outbound: { deadlineMs: 2000 } });
    const refused = await contractErrorOf(connect('alice', { name: 'x', url: 'http://127.0.0.1:9/' }));
    expect(refused.code).toBe('URL_NOT_ALLOWED');

    const failing = await externalApi({ message: 'boom' }, 500);
    const upstream = createConnectSystem({ systems: systemsStore(), limits, outbound });
    const error = await contractErrorOf(upstream('alice', { name: 'x', url: failing.origin }));
    expect(error.code).toBe('UPSTREAM_ERROR');
  });
});

// The function's time, as Lambda's clock gives it (`time-to-store.ts`): a registration or a refresh
// that would start storing with less than the reserve left stores nothing and answers 503, as
// the function's own timeout would; one whose time ran out while it stored (the timeout's 503 has
// gone out, and its caller will try again) deletes what it stored, so the retry stores it once.
describe("the function's time", () => {
  it('stores nothing when the time left would not cover the write, and says so as a timeout', async () => {
    const systems = systemsStore();
    const api = await externalApi(WORKED);
    const lastSeconds = { remainingMs: () => 2_000, limitMs: 20_000 };
    const connect = createConnectSystem({ systems, limits, outbound });
    for (const work of [
      () => connect('alice', { name: 'late', url: `${api.origin}/graph` }, undefined, lastSeconds),
      () =>
        createRegisterSystem({ systems, limits })('alice', { name: 'late', document: WORKED }, lastSeconds),
    ]) {
      const error = await contractErrorOf(work());
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
      expect(error.message).toBe(
        "The request did not finish within the service's time limit; try again in 2 seconds.",
      );
    }
    expect((await systems.list('alice')).systems).toEqual([]);
    // With the time it needs, the same registration stores one system.
    registered(
      await connect('alice', { name: 'on time', url: `${api.origin}/graph` }, undefined, {
        remainingMs: () => 10_000,
      }),
    );
    const stored = (await systems.list('alice')).systems;
    expect(stored.map((system) => system.name)).toEqual(['on time']);

    // A refresh with too little time left keeps the system as it was.
    const refresh = createRefreshSystem({ systems, limits, outbound });
    const before = await systems.getRecord('alice', stored[0]!.id);
    const error = await contractErrorOf(refresh('alice', stored[0]!.id, {}, undefined, lastSeconds));
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(await systems.getRecord('alice', stored[0]!.id)).toEqual(before);
  });

  it('deletes what it stored when the time ran out while it stored', async () => {
    const systems = systemsStore();
    const api = await externalApi(WORKED);
    // Time enough before the write; after it, 5 ms: the timeout's 503 (5 ms before Lambda's)
    // has gone out.
    const runningOut = () => {
      let asked = 0;
      return { remainingMs: () => (asked++ === 0 ? 10_000 : 5) };
    };
    const connected = await contractErrorOf(
      createConnectSystem({ systems, limits, outbound })(
        'alice',
        { name: 'overtaken', url: `${api.origin}/graph` },
        undefined,
        runningOut(),
      ),
    );
    // 40 ms left: the timeout's 503 (5 ms before the end) has not gone out yet, so the request
    // answers it itself, never 201 for the system it deleted.
    const registered = await contractErrorOf(
      createRegisterSystem({ systems, limits })(
        'alice',
        { name: 'overtaken too', document: WORKED },
        {
          remainingMs: (
            (asked) => () =>
              asked.count++ === 0 ? 10_000 : 40
          )({ count: 0 }),
        },
      ),
    );
    for (const error of [connected, registered]) expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect((await systems.list('alice')).systems).toEqual([]);
  });

  // A fetch may not outlast the function: with 1.5 s of a 1.5 s function, an upstream that takes
  // 5 s is cut at 1.5 s less a quarter (1,125 ms) and answered with the fetch's own error, not with
  // the function's timeout and no body; with 150 ms left (less a quarter of a 0.5 s function:
  // 25 ms for the fetch), nothing is fetched: 503, try again. Nothing is stored either way.
  it("gives the fetch no more than the function's time left, for a connect and a refresh", async () => {
    const slow = await startFakeApi((_request, response) => {
      const timer = setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(WORKED));
      }, 5_000);
      response.on('close', () => clearTimeout(timer));
    });
    apis.push(slow);
    const systems = systemsStore();
    const connect = createConnectSystem({ systems, limits, outbound: { ...outbound, deadlineMs: 10_000 } });
    const started = performance.now();
    const cut = await contractErrorOf(
      connect('alice', { name: 'slow', url: slow.origin }, undefined, {
        remainingMs: () => 1_500 - (performance.now() - started),
        limitMs: 1_500,
      }),
    );
    expect(cut.code).toBe('UPSTREAM_ERROR');
    expect(cut.message).toMatch(/did not send a complete answer within 11[0-2]\d ms\.$/);
    expect(performance.now() - started).toBeLessThan(1_500);
    const asked = slow.requests.length;
    const late = await contractErrorOf(
      connect('alice', { name: 'late', url: slow.origin }, undefined, {
        remainingMs: () => 150,
        limitMs: 500,
      }),
    );
    expect(late.code).toBe('SERVICE_UNAVAILABLE');
    expect(slow.requests).toHaveLength(asked);
    expect((await systems.list('alice')).systems).toEqual([]);

    // A refresh fetches under the same rule.
    const fast = await externalApi(WORKED);
    const record = registered(await connect('alice', { name: 'refreshed', url: fast.origin }));
    const fetchedBefore = fast.requests.length;
    const refresh = createRefreshSystem({ systems, limits, outbound: { ...outbound, deadlineMs: 10_000 } });
    const again = await contractErrorOf(
      refresh('alice', record.id, {}, undefined, { remainingMs: () => 150, limitMs: 500 }),
    );
    expect(again.code).toBe('SERVICE_UNAVAILABLE');
    expect(fast.requests).toHaveLength(fetchedBefore);
  });

  // A function of 3 s in all (FUNCTION_TIMEOUT_MS=3000) keeps a quarter of it for the write, not
  // 3 s, which refused every registration: 2 s left is time enough there.
  it('keeps a quarter of a short function time for the write', async () => {
    const systems = systemsStore();
    await createRegisterSystem({ systems, limits })(
      'alice',
      { name: 'short function', document: WORKED },
      { remainingMs: () => 2_000, limitMs: 3_000 },
    );
    expect((await systems.list('alice')).systems.map((system) => system.name)).toEqual(['short function']);
    const error = await contractErrorOf(
      createRegisterSystem({ systems, limits })(
        'alice',
        { name: 'too late', document: WORKED },
        { remainingMs: () => 700, limitMs: 3_000 },
      ),
    );
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('traces and rates: read options, JSON Lines', () => {
  // docs' span worked example: 100 requests into frontend, one every 100 ms (10 s in all).
  const spans = generate(workedExample(), 100, 100_000);
  const otlp = toOtlp(spans);
  /** The same spans as the Collector's file exporter writes them: an export per line, 50 traces each. */
  const otlpLines = `${JSON.stringify(toOtlp(spans.slice(0, spans.length / 2)))}\n${JSON.stringify(toOtlp(spans.slice(spans.length / 2)))}\n`;

  async function serve(body: string, type = 'application/json'): Promise<FakeApi> {
    const api = await startFakeApi(reply(body, { 'content-type': type }));
    apis.push(api);
    return api;
  }

  const arrivals = (structure: { nodes: unknown[] }) =>
    Object.fromEntries(
      (structure.nodes as Array<{ id: string; arrival?: number }>)
        .filter((node) => node.arrival !== undefined)
        .map((node) => [node.id, node.arrival]),
    );

  // Registered while the traced services were quiet: Jaeger's traces answer `{ data: [] }`, which
  // is also its links' empty answer, and is read as links (no nodes). Its next answer holds
  // traces: the refresh reads it as a new answer (a format found again, the window kept), where it
  // used to read it as links and refuse it at `data[0].parent` at every refresh.
  it('reads a system registered from an empty answer in the format its next answer has', async () => {
    const { api, answer } = await changingApi({ data: [], total: 0, limit: 0, offset: 0, errors: null });
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'quiet',
        url: api.origin,
        window: 10,
      }),
    );
    expect(record).toMatchObject({ format: 'dependency-links', nodes: 0, readOptions: { window: 10 } });
    answer({ data: toJaeger(spans).data, total: 0, limit: 0, offset: 0, errors: null });
    const { system: refreshed } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    expect(refreshed).toMatchObject({ format: 'jaeger-traces', nodes: 4, dependencies: 3, unit: 'second' });
    expect(arrivals((await systems.get('alice', record.id))!.structure)).toEqual({ frontend: 10 });
  });

  // The window and the sampling rate reach the span reader: 100 requests over 20 s, one trace in
  // two kept, are 10 a second; the record keeps both, and a refresh reads the new answer with them.
  it('reads spans with the window and sampling rate given, and keeps them for refreshes', async () => {
    const api = await serve(JSON.stringify(otlp));
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'traced',
        url: api.origin,
        window: 20,
        sampleRate: 0.5,
      }),
    );
    expect(record).toMatchObject({
      format: 'otlp-traces',
      unit: 'second',
      nodes: 4,
      dependencies: 3,
      readOptions: { window: 20, sampleRate: 0.5 },
    });
    expect(record.warnings).toBeUndefined();
    const stored = await systems.get('alice', record.id);
    expect(arrivals(stored!.structure)).toEqual({ frontend: 10 });
    expect(stored!.record.readOptions).toEqual({ window: 20, sampleRate: 0.5 });

    const { system: refreshed, etag } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    // No PATCH yet: the settings are still those registered, revision 0.
    expect(etag).toBe('"settings-0"');
    expect(refreshed).toMatchObject({
      version: 2,
      unit: 'second',
      readOptions: { window: 20, sampleRate: 0.5 },
    });
    expect(arrivals((await systems.get('alice', record.id))!.structure)).toEqual({ frontend: 10 });
  });

  // Without a window the reader takes the requests' own span (first start to last end) and says so.
  it('says when it took the window from the spans', async () => {
    const api = await serve(JSON.stringify(otlp));
    const answer = await createConnectSystem({ systems: systemsStore(), limits, outbound })('alice', {
      name: 'traced',
      url: api.origin,
      dryRun: true,
    });
    expect(answer).toMatchObject({
      dryRun: true,
      format: 'otlp-traces',
      unit: 'second',
      entries: ['frontend'],
    });
    expect((answer as DryRunAnswer).warnings[0]).toMatch(/^no window given: the 100 requests that entered/);
  });

  // The Collector's file exporter, served as a file: one export per line, read line by line.
  it('reads a JSON Lines answer, whatever it is served as', async () => {
    for (const type of ['application/x-ndjson', 'application/jsonl', 'application/json']) {
      const api = await serve(otlpLines, type);
      const answer = await createConnectSystem({ systems: systemsStore(), limits, outbound })('alice', {
        name: 'lines',
        url: api.origin,
        window: 10,
        dryRun: true,
      });
      expect(answer, type).toMatchObject({
        format: 'otlp-traces',
        nodes: 4,
        dependencies: 3,
        entries: ['frontend'],
      });
    }
  });

  // A line that is not JSON is named by its number.
  it('names the line of a JSON Lines answer that is not JSON', async () => {
    const api = await serve(`${JSON.stringify(otlp)}\n\n{"resourceSpans": [\n`);
    const error = await contractErrorOf(
      createConnectSystem({ systems: systemsStore(), limits, outbound })('alice', {
        name: 'x',
        url: api.origin,
      }),
    );
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toBe(
      "The external API's answer is JSON Lines (a JSON object or array on each line), but line 3: is not JSON: a JSON Lines text holds one JSON value on each line (a document spread over several lines is JSON, not JSON Lines)",
    );
    expect(error.details).toEqual([
      { path: 'line 3', message: expect.stringMatching(/^line 3: is not JSON/) },
    ]);
  });

  // A Prometheus instant query's answer; its labels option; a series that is not a rate.
  it('reads a Prometheus answer, with the labels named, and refuses NaN naming the series', async () => {
    const vector = (result: unknown[]) =>
      JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
    const api = await serve(
      vector([
        { metric: { source_app: 'web', destination_app: 'api' }, value: [1, '4'] },
        { metric: { source_app: 'api', destination_app: 'db' }, value: [1, '8'] },
      ]),
    );
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'mesh',
        url: api.origin,
        labels: { from: 'source_app', to: 'destination_app' },
      }),
    );
    expect(record).toMatchObject({
      format: 'prometheus',
      unit: 'second',
      nodes: 3,
      readOptions: { labels: { from: 'source_app', to: 'destination_app' } },
    });
    expect(arrivals((await systems.get('alice', record.id))!.structure)).toEqual({ web: 4 });

    const nan = await serve(vector([{ metric: { client: 'user', server: 'web' }, value: [1, 'NaN'] }]));
    const error = await contractErrorOf(
      createConnectSystem({ systems, limits, outbound })('alice', { name: 'x', url: nan.origin }),
    );
    expect(error.code).toBe('UPSTREAM_INVALID');
    expect(error.message).toBe(
      'The external API\'s answer is not a graph the service can read: data.result[0].value[1]: is "NaN" for the series {client="user", server="web"}: not a number of calls (NaN and the infinities come of a division by 0, or of no samples)',
    );
  });

  // A registration from a document reads the same options, and keeps them.
  it('reads a document sent in the request with its options', async () => {
    const systems = systemsStore();
    const record = await createRegisterSystem({ systems, limits })('alice', {
      name: 'from a file',
      document: otlp,
      window: 10,
    });
    expect(record).toMatchObject({ format: 'otlp-traces', readOptions: { window: 10 } });
    expect(arrivals((await systems.get('alice', record.id))!.structure)).toEqual({ frontend: 10 });
  });

  // A registration keeps its URL and shows it on every read: one with a password in it is
  // refused, as connect refuses it, and no message repeats the password (nor connect's for a URL
  // refused for its length).
  it('refuses a URL with a user name or password, never repeating the password', async () => {
    const systems = systemsStore();
    // What registering with `url` answers: the error's code and message.
    const registering = async (url: string) => {
      const error = await contractErrorOf(
        createRegisterSystem({ systems, limits })('alice', { name: 'x', url, document: otlp }),
      );
      return [error.code, error.message];
    };
    expect(await registering('https://reader:s3cret@traces.example.com/api')).toEqual([
      'INVALID_REQUEST',
      'url must not contain a user name or password: the record keeps the URL and shows it, got the string "https://…@traces.example.com/api"',
    ]);
    const tooLong = await contractErrorOf(
      createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'x',
        url: `https://reader:s3cret@traces.example.com/${'a'.repeat(2100)}`,
      }),
    );
    expect(tooLong.code).toBe('INVALID_REQUEST');
    expect(JSON.stringify(tooLong)).not.toContain('s3cret');
    // A token in the query would be kept and shown the same way: refused, its value never repeated.
    // Written as a user name and password, read by the parser as a host, a port and a path: kept,
    // it would be shown on every read. An @ in the query (an address) is kept.
    expect(await registering('http://reader:123/s3cret@traces.example.com/api')).toEqual([
      'INVALID_REQUEST',
      'url must not hold an @ before its query: it reads as a user name and password, which the record would keep and show, got the string "http://…@traces.example.com/api"',
    ]);
    const withAddress = registered(
      await createRegisterSystem({ systems, limits })('alice', {
        name: 'x',
        url: 'https://traces.example.com/api?owner=ops@example.com',
        document: otlp,
      }),
    );
    expect(withAddress.url).toBe('https://traces.example.com/api?owner=ops@example.com');
    await createDeleteSystem({ systems })('alice', withAddress.id);
    expect(await registering('https://t.example/?h=1&access_token=s3cret')).toEqual([
      'INVALID_REQUEST',
      'url must not carry a credential in its query or fragment (access_token, api_key, …): the record keeps the URL and shows it, got the string "https://t.example/?h=1&access_token=…"',
    ]);
    expect(await registering('https://t.example/graph#access_token=s3cret&token_type=bearer')).toEqual([
      'INVALID_REQUEST',
      'url must not carry a credential in its query or fragment (access_token, api_key, …): the record keeps the URL and shows it, got the string "https://t.example/graph#access_token=…&t…"',
    ]);
    const fetched = await contractErrorOf(
      createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'x',
        url: 'https://traces.example.com/api?api_key=s3cret',
      }),
    );
    expect(fetched.code).toBe('URL_NOT_ALLOWED');
    expect(JSON.stringify(fetched)).not.toContain('s3cret');
    // A URL mistyped so that it does not parse (`http//`), or with no scheme (`reader:` is read as
    // one): its user info is masked all the same, by the registration and by connect's body check.
    const mistyped = 'http//reader:s3cret@traces.example.com/api';
    const errors = [
      await contractErrorOf(
        createRegisterSystem({ systems, limits })('alice', { name: 'x', url: mistyped, document: otlp }),
      ),
      await contractErrorOf(
        createRegisterSystem({ systems, limits })('alice', {
          name: 'x',
          url: 'reader:s3cret@traces.example.com',
          document: otlp,
        }),
      ),
      await contractErrorOf(Promise.resolve().then(() => parseConnectRequest({ name: 'x', url: mistyped }))),
    ];
    for (const error of errors) {
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.message).toContain('…@traces.example.com');
      expect(JSON.stringify(error)).not.toContain('s3cret');
    }
    expect((await systems.list('alice', {})).systems).toEqual([]);
  });

  // A window that is a number > 0 but too short for the document: 5e-324 s makes frontend's ten
  // requests an infinite arrival. Still the caller's to fix: 400 naming the window, nothing stored.
  it('refuses a window too short for the requests it is read with, naming the window', async () => {
    const systems = systemsStore();
    const error = await contractErrorOf(
      createRegisterSystem({ systems, limits })('alice', { name: 'x', document: otlp, window: 5e-324 }),
    );
    expect([error.code, error.details]).toEqual([
      'INVALID_REQUEST',
      [
        {
          path: 'window',
          message:
            "5e-324 makes the services' arrivals add up to more than 1e+300, the largest total the engine accepts; give the seconds the spans were collected over",
        },
      ],
    ]);
    expect((await systems.list('alice', {})).systems).toEqual([]);
  });

  // Bad options are the caller's: 400 naming the field, before anything is fetched.
  it.each([
    [{ window: 0 }, 'window must be a finite number of seconds > 0, got 0'],
    [{ window: '300' }, 'window must be a finite number of seconds > 0, got the string "300"'],
    [
      { sampleRate: 1.5 },
      'sampleRate must be a number above 0 and at most 1 (0.1: one trace in ten kept), got 1.5',
    ],
    [
      { sampleRate: 0 },
      'sampleRate must be a number above 0 and at most 1 (0.1: one trace in ten kept), got 0',
    ],
    [
      { labels: { from: 'a', to: 'a' } },
      'labels.to must be another label than from: each series names a caller and a callee, got the string "a"',
    ],
    [
      { labels: { from: 'a' } },
      'labels.to must be a label name: 1-128 characters without control characters, got nothing',
    ],
    [
      { labels: { from: 'a', to: 'b\n' } },
      'labels.to must be a label name: 1-128 characters without control characters, got the string "b\\n"',
    ],
    // Prometheus 3 takes UTF-8 label names (an OTLP attribute kept as service.name): any name is one.
    [
      { labels: { from: '', to: 'service.name' } },
      'labels.from must be a label name: 1-128 characters without control characters, got the string ""',
    ],
    [
      { labels: 'client' },
      'labels must be an object { from, to } naming two different labels, got the string "client"',
    ],
  ])('refuses %j', async (options, message) => {
    const api = await serve(JSON.stringify(otlp));
    const error = await contractErrorOf(
      createConnectSystem({ systems: systemsStore(), limits, outbound })('alice', {
        name: 'x',
        url: api.origin,
        ...options,
      }),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toBe(message);
    expect(api.requests).toEqual([]);
    const registerError = await contractErrorOf(
      createRegisterSystem({ systems: systemsStore(), limits })('alice', {
        name: 'x',
        document: otlp,
        ...options,
      }),
    );
    expect(registerError.message).toBe(message);
  });
});

describe('refresh', () => {
  // Zipkin spans without times count per document (one step: the window); the next answer carries
  // times, so one step is one second. A settings' serviceTime given as a share of the window now
  // reads as seconds: the refresh says the step changed, and that the settings are read per it.
  it('says so when what one step stands for changes', async () => {
    const span = (id: string, times: boolean) => ({
      traceId: '1',
      id,
      name: 'get',
      kind: 'SERVER',
      localEndpoint: { serviceName: 'web' },
      ...(times ? { timestamp: 1_700_000_000_000_000 + Number(id) * 1_000_000, duration: 10_000 } : {}),
    });
    const { api, answer } = await changingApi([span('1', false)]);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'spans',
        url: api.origin,
        settings: { nodes: { web: { serviceTime: 0.001 } } },
      }),
    );
    expect(record.unit).toBe('window');
    answer([span('1', true), span('2', true)]);
    const { system } = await createRefreshSystem({ systems, limits, outbound })('alice', record.id, {});
    expect(system.unit).toBe('second');
    expect(system.warnings).toContain(
      "one step is now one second (it was the source's whole window): the settings' times and rates (serviceTime, slo, arrival, capacity) are read per the new step; check them",
    );
    // Refreshed again as it is: nothing changed, nothing said.
    const again = await createRefreshSystem({ systems, limits, outbound })('alice', record.id, {});
    expect(again.system.warnings ?? []).not.toContainEqual(expect.stringMatching(/^one step is now/));
  });

  // The URL answers something new: the structure is replaced whole, the version goes up, and
  // the engine by id answers as the new structure sent inline does.
  it('replaces the structure from the same URL, in the same format, and counts the version', async () => {
    const { api, answer } = await changingApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 'w', url: api.origin }),
    );
    expect(record.version).toBe(1);
    const grown = {
      nodes: [...WORKED.nodes, { id: 'D', load: 2 }],
      dependencies: [...WORKED.dependencies, { from: 'C', to: 'D' }],
    };
    answer(grown);
    const { system: refreshed, etag } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    // No PATCH yet: the settings are still those registered, revision 0.
    expect(etag).toBe('"settings-0"');
    expect(refreshed).toMatchObject({
      id: record.id,
      nodes: 4,
      dependencies: 4,
      version: 2,
      format: 'native',
    });
    expect(refreshed.refreshedAt).toBeDefined();
    expect((await systems.get('alice', record.id))?.structure).toEqual(grown);
    const run = createRunEngine({ limits, systems });
    const byId = await run({ body: { mode: 'analyze', systemId: record.id }, owner: 'alice' });
    expect(byId.json).toBe((await createRunEngine({ limits })({ body: { mode: 'analyze', ...grown } })).json);

    // Large enough to be stored in chunks: the third version's chunks replace the second's.
    const many = {
      nodes: Array.from({ length: 30_000 }, (_, i) => ({ id: `n${i}`, note: `node number ${i}` })),
      dependencies: Array.from({ length: 30_000 }, (_, e) => ({
        from: `n${e}`,
        to: `n${(e * 31 + 7) % 30_000}`,
      })),
    };
    answer(many);
    const third = await createRefreshSystem({ systems, limits, outbound })('alice', record.id, {});
    expect(third.system.version).toBe(3);
    expect((await systems.get('alice', record.id))?.structure.dependencies).toHaveLength(30_000);
  });

  // A refresh that fails leaves the system exactly as it was.
  it('changes nothing when the URL fails or answers something that is not a graph', async () => {
    const { api, answer } = await changingApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 'w', url: api.origin }),
    );
    const refresh = createRefreshSystem({ systems, limits, outbound });
    answer({ oops: true }, 500);
    expect((await contractErrorOf(refresh('alice', record.id, {}))).code).toBe('UPSTREAM_ERROR');
    answer({ nodes: [{ id: 'A' }], dependencies: [{ from: 'A', to: 'Z' }] });
    expect((await contractErrorOf(refresh('alice', record.id, {}))).code).toBe('UPSTREAM_INVALID');
    const after = await systems.get('alice', record.id);
    expect(after?.record.version ?? 1).toBe(1);
    expect(after?.structure).toEqual(WORKED);
  });

  it("answers another owner's system as not found, and a system registered from a document with 400", async () => {
    const { api } = await changingApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 'w', url: api.origin }),
    );
    const refresh = createRefreshSystem({ systems, limits, outbound });
    expect((await contractErrorOf(refresh('bob', record.id, {}))).code).toBe('SYSTEM_NOT_FOUND');
    const uploaded = await createRegisterSystem({ systems, limits })('alice', {
      name: 'file',
      document: WORKED,
    });
    const error = await contractErrorOf(refresh('alice', uploaded.id, {}));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('registered from a document');
  });

  // Two refreshes that read the same version: the one whose head lands second loses and keeps
  // nothing; the system is the winner's, whole. The first refresh's head write is held back until
  // the second has finished.
  it('refuses a replace that lost a race with SYSTEM_CHANGED, keeping the winner', async () => {
    const { api } = await changingApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 'w', url: api.origin }),
    );
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    const doc = table.doc;
    const slowDoc = {
      send: async (command: { input?: { ConditionExpression?: string } }) => {
        if (!held && command.input?.ConditionExpression?.includes('#version')) {
          held = true;
          await gate;
        }
        return doc.send(command as never);
      },
    };
    const slow = new DynamoSystemStore({ doc: slowDoc as never, tableName: table.tableName });
    const loser = slow.replace('alice', record.id, { structure: { nodes: [{ id: 'X' }], dependencies: [] } });
    // Let the slow one read the head and reach its held write first.
    while (!held) await new Promise((resolve) => setTimeout(resolve, 5));
    const winner = { nodes: [{ id: 'Y' }], dependencies: [] };
    expect((await systems.replace('alice', record.id, { structure: winner }))?.version).toBe(2);
    release();
    await expect(loser).rejects.toBeInstanceOf(SystemChangedError);
    const after = await systems.get('alice', record.id);
    expect(after?.structure).toEqual(winner);
    expect(after?.record.version).toBe(2);
    // Through the use case, the loss is the contract's 409.
    const lost = await contractErrorOf(
      createRefreshSystem({
        systems: {
          getRecord: systems.getRecord.bind(systems),
          replace: () => Promise.reject(new SystemChangedError('x')),
        },
        limits,
        outbound,
      })('alice', record.id, {}),
    );
    expect(lost.code).toBe('SYSTEM_CHANGED');
    expect(lost.status).toBe(409);
  });

  // Refresh A fetches from a slow upstream; meanwhile the upstream changes and refresh B fetches
  // and stores the new document (200). A's older document must not replace B's: A is 409 and the
  // system is B's. A delete while A fetches is a 409 too, as the contract says of a refresh that
  // lost to a delete.
  it('keeps a refresh that finished while an older one was still fetching', async () => {
    let body = JSON.stringify(WORKED);
    let holdNext = false;
    let release: () => void = () => undefined;
    let fetched: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      fetched = resolve;
    });
    const api = await startFakeApi(async (_request, response) => {
      const sent = body;
      if (holdNext) {
        holdNext = false;
        fetched();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(sent);
    });
    apis.push(api);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 'w', url: api.origin }),
    );
    const refresh = createRefreshSystem({ systems, limits, outbound });
    holdNext = true;
    const older = contractErrorOf(refresh('alice', record.id, {}));
    await arrived;
    const newer = { nodes: [{ id: 'A' }, { id: 'X' }], dependencies: [{ from: 'A', to: 'X' }] };
    body = JSON.stringify(newer);
    const landed = await refresh('alice', record.id, {});
    expect(landed.system).toMatchObject({ version: 2, nodes: 2 });
    release();
    expect(await older).toMatchObject({ status: 409, code: 'SYSTEM_CHANGED' });
    const kept = await systems.get('alice', record.id);
    expect(kept?.record.version).toBe(2);
    expect(kept?.structure.nodes.map((node) => (node as { id: string }).id)).toEqual(['A', 'X']);

    const fetchedAgain = new Promise<void>((resolve) => {
      fetched = resolve;
    });
    holdNext = true;
    const afterDelete = contractErrorOf(refresh('alice', record.id, {}));
    await fetchedAgain;
    expect(await systems.delete('alice', record.id)).toBe(true);
    release();
    expect(await afterDelete).toMatchObject({ status: 409, code: 'SYSTEM_CHANGED' });
    expect(await systems.get('alice', record.id)).toBeUndefined();
  });
});

describe('settings', () => {
  // A call graph has no capacities; the team sets B's, and the engine on the system uses it:
  // the answer by id is the one the structure with that capacity sent inline gets.
  it('applies settings given at connect on every run, and PATCH replaces them', async () => {
    const open = {
      nodes: [
        { id: 'F', arrival: 10, fanout: true },
        { id: 'B', exit: 1 },
      ],
      dependencies: [{ from: 'F', to: 'B', weight: 2 }],
    };
    const api = await externalApi(open);
    const systems = systemsStore();
    const cache = new CompiledStructureCache(64 * 1024 * 1024);
    const record = registered(
      await createConnectSystem({ systems, limits, outbound, cache })('alice', {
        name: 'open',
        url: api.origin,
        settings: { nodes: { B: { capacity: 15 } } },
      }),
    );
    expect(record.settings).toEqual({ nodes: { B: { capacity: 15 } } });
    const run = createRunEngine({ limits, systems, cache });
    const inline = (structure: unknown) =>
      createRunEngine({ limits })({ body: { mode: 'analyze', ...(structure as object) } });
    const withCapacity = (capacity: number) => ({
      nodes: [open.nodes[0], { id: 'B', exit: 1, capacity }],
      dependencies: open.dependencies,
    });
    const first = await run({ body: { mode: 'analyze', systemId: record.id }, owner: 'alice' });
    expect(first.json).toBe((await inline(withCapacity(15))).json);
    expect(JSON.parse(first.json).engine.headroom).toEqual({ scale: 0.75, node: 'B' });

    // PATCH: a default for every node without a capacity, and B's raised; the cache follows.
    const { system: updated, etag } = await createUpdateSettings({ systems })('alice', record.id, {
      settings: { defaultCapacity: 100, nodes: { B: { capacity: 40 } } },
    });
    expect(etag).toBe('"settings-1"');
    expect(updated.settings).toEqual({ defaultCapacity: 100, nodes: { B: { capacity: 40 } } });
    const second = await run({ body: { mode: 'analyze', systemId: record.id }, owner: 'alice' });
    const expected = {
      nodes: [
        { ...open.nodes[0], capacity: 100 },
        { id: 'B', exit: 1, capacity: 40 },
      ],
      dependencies: open.dependencies,
    };
    expect(second.json).toBe((await inline(expected)).json);

    // Empty settings: back to the structure as fetched.
    const { system: cleared } = await createUpdateSettings({ systems })('alice', record.id, { settings: {} });
    expect(cleared).not.toHaveProperty('settings');
    const third = await run({ body: { mode: 'analyze', systemId: record.id }, owner: 'alice' });
    expect(third.json).toBe((await inline(open)).json);
  });

  // `If-Match: *` holds while the system has any settings at all (RFC 9110 §13.1.1): another PATCH
  // that lands between this one's read and its write changes nothing of that, so it is no 412.
  it('takes If-Match: * as "the system exists", whatever PATCH lands meanwhile', async () => {
    const api = await externalApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 'w', url: api.origin }),
    );
    let rival: Promise<unknown> | undefined;
    const racing = {
      get: async (owner: string, id: string) => {
        const stored = await systems.get(owner, id);
        // Another PATCH lands once this one has read the settings.
        rival ??= createUpdateSettings({ systems })('alice', record.id, { settings: { defaultCapacity: 5 } });
        await rival;
        return stored;
      },
      updateSettings: systems.updateSettings.bind(systems),
    };
    const { system, etag } = await createUpdateSettings({ systems: racing })(
      'alice',
      record.id,
      { settings: { defaultCapacity: 7 } },
      { ifMatch: '*' },
    );
    expect(system.settings).toEqual({ defaultCapacity: 7 });
    expect(etag).toBe('"settings-2"');
    // A tag that was current when read is a 412 in the same race.
    rival = undefined;
    const stale = await contractErrorOf(
      createUpdateSettings({ systems: racing })(
        'alice',
        record.id,
        { settings: { defaultCapacity: 9 } },
        { ifMatch: '"settings-2"' },
      ),
    );
    expect(stale.status).toBe(412);
    expect((await systems.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 5 });
    // If-None-Match listing the tag a rival PATCH makes between the read and the write: the write
    // waited for the settings read, fails, reads again, and finds the listed tag: 412, and the
    // rival's settings stay (it overwrote them, as the header was asked of the settings before).
    rival = undefined;
    const listedByRival = await contractErrorOf(
      createUpdateSettings({ systems: racing })(
        'alice',
        record.id,
        { settings: { defaultCapacity: 11 } },
        { ifNoneMatch: '"settings-4"' },
      ),
    );
    expect(listedByRival.status).toBe(412);
    expect(listedByRival.message).toMatch(/If-None-Match/);
    expect((await systems.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 5 });
    // A rival PATCH after every read: three tries, then a 412 saying the settings kept changing
    // (not one about If-Match, which was not sent), and the rivals' settings stay.
    let rivals = 0;
    const restless = {
      get: async (owner: string, id: string) => {
        const stored = await systems.get(owner, id);
        rivals++;
        await createUpdateSettings({ systems })('alice', record.id, {
          settings: { defaultCapacity: 100 + rivals },
        });
        return stored;
      },
      updateSettings: systems.updateSettings.bind(systems),
    };
    const keptChanging = await contractErrorOf(
      createUpdateSettings({ systems: restless })(
        'alice',
        record.id,
        { settings: { defaultCapacity: 12 } },
        { ifNoneMatch: '"settings-1"' },
      ),
    );
    expect([keptChanging.status, rivals]).toEqual([412, 3]);
    expect(keptChanging.message).toMatch(/kept changing/);
    expect(keptChanging.message).not.toMatch(/If-Match/);
    expect((await systems.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 103 });
  });

  it('refuses settings naming a node the structure lacks, or a bad number, naming the entry', async () => {
    const api = await externalApi(WORKED);
    const systems = systemsStore();
    const connect = createConnectSystem({ systems, limits, outbound });
    const unknown = await contractErrorOf(
      connect('alice', { name: 'w', url: api.origin, settings: { nodes: { Z: { capacity: 1 } } } }),
    );
    expect(unknown.code).toBe('INVALID_REQUEST');
    expect(unknown.message).toBe('settings.nodes.Z names no node of the structure');
    const bad = await contractErrorOf(
      connect('alice', { name: 'w', url: api.origin, settings: { nodes: { B: { capacity: 'x' } } } }),
    );
    expect(bad.message).toBe('settings.nodes.B.capacity must be a finite number > 0, got the string "x"');
    expect((await systems.list('alice', {})).systems).toEqual([]);

    const record = registered(await connect('alice', { name: 'w', url: api.origin }));
    const patch = createUpdateSettings({ systems });
    expect(
      (await contractErrorOf(patch('alice', record.id, { settings: { defaultCapacity: -1 } }))).message,
    ).toBe('settings.defaultCapacity must be a finite number > 0, got -1');
    expect((await contractErrorOf(patch('bob', record.id, { settings: {} }))).code).toBe('SYSTEM_NOT_FOUND');
  });

  // The API serves 10 requests a second on one server of 0.1 s (a capacity of 10); the database
  // has no service time. A capacity of 3 for the API contradicts its servers, and servers for the
  // database serve no service time: each is refused where the settings are written, naming the
  // setting, and nothing is stored or changed. A refresh can still bring a structure that kept
  // settings no longer fit: it says so, and runs name the setting.
  it('refuses settings the structure contradicts when they are written, naming the setting', async () => {
    const shop = {
      nodes: [
        { id: 'api', arrival: 5, serviceTime: 0.1, servers: 1, fanout: true },
        { id: 'db', exit: 1 },
      ],
      dependencies: [{ from: 'api', to: 'db' }],
    };
    const { api, answer } = await changingApi(shop);
    const systems = systemsStore();
    const connect = createConnectSystem({ systems, limits, outbound });
    const register = createRegisterSystem({ systems, limits });
    const capacity = 'settings.nodes.api.capacity: 3 disagrees with servers / serviceTime = 10; drop one';
    const servers =
      'settings.nodes.db.servers: servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"';
    for (const dryRun of [true, false]) {
      const refused = await contractErrorOf(
        connect('alice', {
          name: 's',
          url: api.origin,
          dryRun,
          settings: { nodes: { api: { capacity: 3 } } },
        }),
      );
      expect([refused.code, refused.message]).toEqual(['INVALID_REQUEST', capacity]);
      expect(refused.details).toEqual([
        {
          path: 'settings.nodes.api.capacity',
          message: '3 disagrees with servers / serviceTime = 10; drop one',
        },
      ]);
    }
    const registerRefused = await contractErrorOf(
      register('alice', { name: 's', document: shop, settings: { nodes: { db: { servers: 2 } } } }),
    );
    expect([registerRefused.code, registerRefused.message]).toEqual(['INVALID_REQUEST', servers]);
    // A problem no setting of its node caused (api's arrival pushes the total past 1e300, and it
    // is db's own arrival the total crosses at) is said of the settings as a whole.
    const total = await contractErrorOf(
      register('alice', {
        name: 's',
        document: { ...shop, nodes: [shop.nodes[0], { id: 'db', exit: 1, arrival: 6e299 }] },
        settings: { nodes: { api: { arrival: 5e299 }, db: { slo: 2 } } },
      }),
    );
    expect(total.details).toEqual([
      {
        path: 'settings',
        message: expect.stringMatching(
          /^do not fit the structure: nodes\[1\]\.arrival: and the loads and arrivals/,
        ),
      },
    ]);
    // A node without a way out (a database that keeps what reaches it) takes no servers; the
    // message asks for what settings can do (an exit is the structure's alone).
    const sinkRefused = await contractErrorOf(
      register('alice', {
        name: 's',
        document: { ...shop, nodes: [shop.nodes[0], { id: 'db', serviceTime: 0.01 }] },
        settings: { nodes: { db: { servers: 2 } } },
      }),
    );
    expect(sinkRefused.details).toEqual([
      {
        path: 'settings.nodes.db.servers',
        message:
          'the node has no way out (no dependency, no "exit", no "fanout"): what reaches it stays there and none of it is served, so it has no queue; settings cannot give it one (an "exit" or "fanout": true is the structure\'s): drop "servers"',
      },
    ]);
    expect((await systems.list('alice', {})).systems).toEqual([]);

    const record = registered(await connect('alice', { name: 's', url: api.origin }));
    const patch = createUpdateSettings({ systems });
    const patchRefused = await contractErrorOf(
      patch('alice', record.id, { settings: { nodes: { db: { servers: 2 } } } }),
    );
    expect([patchRefused.code, patchRefused.message]).toEqual(['INVALID_REQUEST', servers]);
    expect((await systems.getRecord('alice', record.id))!.settings).toBeUndefined();

    // Settings that fit today: 2 servers for the API (a capacity of 20) and a capacity of 20
    // beside them. The API then drops its service time upstream: servers alone are refused.
    await patch('alice', record.id, { settings: { nodes: { api: { servers: 2, capacity: 20 } } } });
    answer({ ...shop, nodes: [{ id: 'api', arrival: 5, fanout: true }, shop.nodes[1]] });
    const { system: refreshed } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    expect(refreshed.warnings).toEqual([
      'settings no longer fit the structure (runs answer PAYLOAD_ERROR until they change): settings.nodes.api.servers: servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
    ]);
    const run = await contractErrorOf(
      createRunEngine({ limits, systems })({
        body: { mode: 'analyze', systemId: record.id },
        owner: 'alice',
      }),
    );
    expect([run.code, run.details]).toEqual([
      'PAYLOAD_ERROR',
      [
        {
          path: 'settings.nodes.api.servers',
          message: 'servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
        },
      ],
    ]);

    // A service time of 1e308 compiles, but its p99 is past the largest double: only a run finds
    // it, so the PATCH runs the system with it, refuses it naming the setting, and changes nothing.
    const before = (await systems.getRecord('alice', record.id))!.settings;
    const p99 = await contractErrorOf(
      patch('alice', record.id, { settings: { nodes: { api: { serviceTime: 1e308 } } } }),
    );
    expect([p99.code, p99.details?.[0]?.path]).toEqual(['INVALID_REQUEST', 'settings.nodes.api.serviceTime']);
    expect(p99.message).toMatch(/^settings\.nodes\.api\.serviceTime: makes the node's \w+ larger than/);
    expect((await systems.getRecord('alice', record.id))!.settings).toEqual(before);

    // Such settings stored before writes were checked this way (written here straight to the
    // store): runs name the setting, cached or not.
    await systems.updateSettings('alice', record.id, { nodes: { api: { serviceTime: 1e308 } } });
    for (const cache of [undefined, new CompiledStructureCache(64 * 1024 * 1024)]) {
      const engine = createRunEngine({ limits, systems, ...(cache === undefined ? {} : { cache }) });
      for (let round = 0; round < 2; round++) {
        const found = await contractErrorOf(
          engine({ body: { mode: 'analyze', systemId: record.id }, owner: 'alice' }),
        );
        expect([found.code, found.details?.[0]?.path]).toEqual([
          'PAYLOAD_ERROR',
          'settings.nodes.api.serviceTime',
        ]);
      }
    }

    // An entry's latency that many nodes' times make (10 calls of 3e307 s each) is past a double:
    // no one setting gave it, so a registration with them is refused naming the settings and what
    // runs would say, and runs on a system stored with them name the entry.
    const fan = {
      name: 'fan',
      document: {
        nodes: [
          { id: 'web', arrival: 0.01, fanout: true },
          { id: 'db', exit: 1 },
        ],
        dependencies: [{ from: 'web', to: 'db', weight: 10 }],
      },
    };
    const fanSettings = { nodes: { db: { serviceTime: 3e307 } } };
    const fanRefused = await contractErrorOf(register('alice', { ...fan, settings: fanSettings }));
    expect([fanRefused.code, fanRefused.details]).toEqual([
      'INVALID_REQUEST',
      [
        {
          path: 'settings',
          message: expect.stringMatching(
            /^runs cannot answer with them applied: nodes\[0\] \(node "web"\): its requests' end-to-end latency /,
          ),
        },
      ],
    ]);
    const fanned = registered(await register('alice', fan));
    await systems.updateSettings('alice', fanned.id, fanSettings);
    const summed = await contractErrorOf(
      createRunEngine({ limits, systems })({
        body: { mode: 'analyze', systemId: fanned.id },
        owner: 'alice',
      }),
    );
    expect([summed.code, summed.details]).toEqual([
      'PAYLOAD_ERROR',
      [
        {
          path: 'nodes[0]',
          message:
            "its requests' end-to-end latency (expected calls times response times on their paths) is larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit (with the system's settings applied)",
        },
      ],
    ]);
  });

  // api calls db once per request. A db service time of 1e300 gives each request 1e300 s (a
  // double); 1e308 puts db's p99 past the largest double. Only a run finds that, so a connect
  // with it is refused (400 naming the setting) and stores nothing; on a structure whose runs fail
  // without any settings, settings are not refused for it; and a refresh that brings 1e10 calls
  // per request (1e310 s with the kept setting) says the settings no longer fit.
  it('refuses settings with which runs of a structure that runs cannot answer, where they are written', async () => {
    const calls = (weight: number, dbServiceTime?: number) => ({
      nodes: [
        { id: 'api', arrival: 1e-12, fanout: true },
        dbServiceTime === undefined
          ? { id: 'db', exit: 1 }
          : { id: 'db', exit: 1, serviceTime: dbServiceTime },
      ],
      dependencies: [{ from: 'api', to: 'db', weight }],
    });
    const { api, answer } = await changingApi(calls(1));
    const systems = systemsStore();
    const connect = createConnectSystem({ systems, limits, outbound });
    const refused = await contractErrorOf(
      connect('alice', { name: 's', url: api.origin, settings: { nodes: { db: { serviceTime: 1e308 } } } }),
    );
    expect([refused.code, refused.details?.[0]?.path]).toEqual([
      'INVALID_REQUEST',
      'settings.nodes.db.serviceTime',
    ]);
    expect((await systems.list('alice', {})).systems).toEqual([]);

    // The structure's own 1e308 fails every run; settings that do not cause it are taken.
    const broken = registered(
      await createRegisterSystem({ systems, limits })('alice', { name: 'b', document: calls(1, 1e308) }),
    );
    const patch = createUpdateSettings({ systems });
    const { system } = await patch('alice', broken.id, { settings: { nodes: { api: { arrival: 2e-12 } } } });
    expect(system.settings).toEqual({ nodes: { api: { arrival: 2e-12 } } });

    const record = registered(
      await connect('alice', {
        name: 's',
        url: api.origin,
        settings: { nodes: { db: { serviceTime: 1e300 } } },
      }),
    );
    answer(calls(1e10));
    const { system: refreshed } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    expect(refreshed.warnings).toEqual([
      expect.stringMatching(
        /^settings no longer fit the structure \(runs answer PAYLOAD_ERROR until they change\): settings: runs cannot answer with them applied: nodes\[0\] \(node "api"\): its requests' end-to-end latency /,
      ),
    ]);

    // With 4 s of the function's 20 s left, the check before the write gives way (it keeps 6 s):
    // the refresh is stored and says nothing of the settings.
    const fourSecondsLeft = { remainingMs: () => 4_000, limitMs: 20_000 };
    const { system: unchecked } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
      undefined,
      fourSecondsLeft,
    );
    expect(unchecked.warnings).toBeUndefined();

    // The refresh checks the kept settings before it writes; a PATCH landing while it fetches
    // (checked against the structure before, where 1e300 s fits) is checked again after, while
    // the answer's time allows.
    answer(calls(1));
    const raced = registered(await connect('alice', { name: 'r', url: api.origin }));
    answer(calls(1e10));
    let patched: Promise<unknown> | undefined;
    const { system: afterRace } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      raced.id,
      {},
      () => {
        patched = patch('alice', raced.id, { settings: { nodes: { db: { serviceTime: 1e300 } } } });
      },
      // After its write the check keeps only the answer's 3 s: with 4 s left it runs.
      fourSecondsLeft,
    );
    await patched;
    expect(afterRace.settings).toEqual({ nodes: { db: { serviceTime: 1e300 } } });
    expect(afterRace.warnings).toEqual([expect.stringMatching(/^settings no longer fit the structure /)]);
  });

  // Which settings a run's refusal is said of. A takes 1 a step and passes nearly all of it to B,
  // whose service time is 1e300 s: 1e300 requests in flight. An arrival of 1e10 set on A puts
  // that past a double at B, where only a capacity is set: the capacity is not the cause (the run
  // without it refuses the same), so the settings as a whole are named. A document that fails
  // alone (X's p99 past a double) is the document's to fix: settings that name no cause are taken
  // there, even Y's own 1e308 (the run refuses at the entry first). A dry run says what the
  // connect says.
  it('names the setting a run refuses only where it is the cause, and the dry run agrees', async () => {
    const queue = {
      nodes: [
        { id: 'A', arrival: 1, exit: 0.000001 },
        { id: 'B', exit: 1, serviceTime: 1e300 },
      ],
      dependencies: [{ from: 'A', to: 'B' }],
    };
    const systems = systemsStore();
    const register = createRegisterSystem({ systems, limits });
    const refusedFor = async (document: unknown, settings: unknown) =>
      (await contractErrorOf(register('alice', { name: 'q', document, settings }))).details;
    const whole = [
      {
        path: 'settings',
        message: expect.stringMatching(
          /^runs cannot answer with them applied: nodes\[1\]\.serviceTime \(node "B"\): makes the node's inFlight larger/,
        ),
      },
    ];
    expect(await refusedFor(queue, { nodes: { A: { arrival: 1e10 } } })).toEqual(whole);
    expect(await refusedFor(queue, { nodes: { A: { arrival: 1e10 }, B: { capacity: 1e30 } } })).toEqual(
      whole,
    );
    // The node is named by its id, its two ends when long: a 3-million-character id once came
    // back whole, twice (6.3 MB of error for a 45-byte change).
    const longId = `Q${'q'.repeat(3_000_000)}`;
    const longQueue = {
      nodes: [queue.nodes[0]!, { ...queue.nodes[1]!, id: longId }],
      dependencies: [{ from: 'A', to: longId }],
    };
    const named = await refusedFor(longQueue, { nodes: { A: { arrival: 1e10 } } });
    expect(named![0]!.message).toContain(`(node "Q${'q'.repeat(127)}…${'q'.repeat(127)}")`);
    expect(JSON.stringify(named).length).toBeLessThan(2_000);
    registered(
      await register('alice', { name: 'q', document: queue, settings: { nodes: { B: { capacity: 1e30 } } } }),
    );

    const fanned = (x: number) => ({
      nodes: [
        { id: 'web', arrival: 1e-12, fanout: true },
        { id: 'X', exit: 1, serviceTime: x },
        { id: 'Y', exit: 1, serviceTime: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'X' },
        { from: 'web', to: 'Y' },
      ],
    });
    registered(
      await register('alice', { name: 'f', document: fanned(1e308), settings: { nodes: { Y: { slo: 5 } } } }),
    );
    registered(
      await register('alice', {
        name: 'f',
        document: fanned(1e308),
        settings: { nodes: { Y: { serviceTime: 1e308 } } },
      }),
    );
    // X and Z both past a double in the document: settings that fix X alone are taken (the run
    // with them then refuses at Z, which is no setting's doing), so they can be fixed one by one.
    const twoBroken = {
      nodes: [...fanned(1e308).nodes, { id: 'Z', exit: 1, serviceTime: 1e308 }],
      dependencies: [...fanned(1e308).dependencies, { from: 'web', to: 'Z' }],
    };
    registered(
      await register('alice', {
        name: 'z',
        document: twoBroken,
        settings: { nodes: { X: { serviceTime: 1 } } },
      }),
    );

    // The dry run and the connect, on the document that fails alone and on one that runs.
    const connect = createConnectSystem({ systems, limits, outbound });
    const failing = await externalApi(fanned(1e308));
    const working = await externalApi(fanned(1));
    const both = async (origin: string, settings: unknown) =>
      Promise.all(
        [true, false].map(async (dryRun) => {
          try {
            await connect('alice', { name: 'c', url: origin, dryRun, settings });
            return 'taken';
          } catch (error) {
            return (error as { code?: string }).code;
          }
        }),
      );
    expect(await both(failing.origin, { nodes: { Y: { slo: 5 } } })).toEqual(['UPSTREAM_INVALID', 'taken']);
    expect(await both(working.origin, { nodes: { Y: { serviceTime: 1e308 } } })).toEqual([
      'INVALID_REQUEST',
      'INVALID_REQUEST',
    ]);
    // Refused as a whole (A's arrival overflows B's queue): the dry run says the same 400.
    const queueApi = await externalApi(queue);
    for (const dryRun of [true, false]) {
      const refused = await contractErrorOf(
        connect('alice', {
          name: 'c',
          url: queueApi.origin,
          dryRun,
          settings: { nodes: { A: { arrival: 1e10 } } },
        }),
      );
      expect([refused.code, refused.details]).toEqual(['INVALID_REQUEST', whole]);
    }
    // With 5 s of the function's 20 s left the runs that decide it give way (they keep 6 s): the
    // dry run names a queue setting of the node as runs do, else the element, 422.
    const late = await contractErrorOf(
      connect(
        'alice',
        { name: 'c', url: queueApi.origin, dryRun: true, settings: { nodes: { A: { arrival: 1e10 } } } },
        undefined,
        { remainingMs: () => 5_000, limitMs: 20_000 },
      ),
    );
    expect(late.code).toBe('UPSTREAM_INVALID');
    // Stopped later, once the run without B's capacity refused the same: the capacity is not the
    // cause, and is not named (the clock has time for the dry run's own analysis and that one
    // run, none after).
    const clearedSettings = { nodes: { A: { arrival: 1e10 }, B: { capacity: 1e30 } } };
    let analysisReads = 0;
    expect(() =>
      withStopCheck(
        () => analysisReads++ < 0,
        () => analyze(compileWithSettings(queue, clearedSettings)),
      ),
    ).toThrow(PayloadError);
    // Three reads more, before all of them: the time at the start, the fetch's deadline, and the
    // time once the document is read.
    let reads = -analysisReads - 3;
    const cleared = await contractErrorOf(
      connect(
        'alice',
        {
          name: 'c',
          url: queueApi.origin,
          dryRun: true,
          settings: clearedSettings,
        },
        undefined,
        { remainingMs: () => (reads++ <= 0 ? 14_000 : 0), limitMs: 20_000 },
      ),
    );
    expect(cleared.code).toBe('UPSTREAM_INVALID');
  });

  // The check runs the engine, so it gives way to the function's time: with less than twice the
  // store's reserve left it stops and the settings are taken unchecked, as before the check.
  // Settings emptied are taken whatever the time (nothing of theirs to run).
  it('takes settings unchecked when the function has no time to run them', async () => {
    const document = {
      nodes: [
        { id: 'api', arrival: 1e-12, fanout: true },
        { id: 'db', exit: 1 },
      ],
      dependencies: [{ from: 'api', to: 'db' }],
    };
    const systems = systemsStore();
    const record = registered(
      await createRegisterSystem({ systems, limits })('alice', { name: 't', document }),
    );
    const patch = createUpdateSettings({ systems });
    const broken = { settings: { nodes: { db: { serviceTime: 1e308 } } } };
    const inTime = { remainingMs: () => 14_000, limitMs: 20_000 };
    expect((await contractErrorOf(patch('alice', record.id, broken, undefined, inTime))).code).toBe(
      'INVALID_REQUEST',
    );
    const late = { remainingMs: () => 5_000, limitMs: 20_000 };
    const { system } = await patch('alice', record.id, broken, undefined, late);
    expect(system.settings).toEqual(broken.settings);
    // A check that used the time up (the clock reads 0 after it) writes nothing: 503, try again.
    let reads = 0;
    const usedUp = { remainingMs: () => (reads++ === 0 ? 14_000 : 0), limitMs: 20_000 };
    const outOfTime = await contractErrorOf(
      patch('alice', record.id, { settings: { nodes: { db: { slo: 1 } } } }, undefined, usedUp),
    );
    expect(outOfTime.code).toBe('SERVICE_UNAVAILABLE');
    expect((await systems.getRecord('alice', record.id))!.settings).toEqual(broken.settings);
    const { system: cleared } = await patch('alice', record.id, { settings: {} }, undefined, inTime);
    expect(cleared.settings).toBeUndefined();
  });

  // A refresh that lands between a PATCH's check and its write: the settings were checked against
  // the structure before it, so they are not written onto the new one unchecked. The PATCH checks
  // them again against what the refresh brought and refuses them there, naming the setting.
  it('checks settings again when a refresh lands between their check and their write', async () => {
    const shop = {
      nodes: [
        { id: 'api', arrival: 5, serviceTime: 0.1, fanout: true },
        { id: 'db', exit: 1 },
      ],
      dependencies: [{ from: 'api', to: 'db' }],
    };
    const { api, answer } = await changingApi(shop);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', { name: 's', url: api.origin }),
    );
    // The source drops the API's service time; the refresh lands right after the PATCH's read.
    answer({ ...shop, nodes: [{ id: 'api', arrival: 5, fanout: true }, shop.nodes[1]!] });
    const refresh = createRefreshSystem({ systems, limits, outbound });
    let reads = 0;
    const racing = {
      get: async (owner: string, id: string) => {
        const read = await systems.get(owner, id);
        if (reads++ === 0) await refresh('alice', record.id, {});
        return read;
      },
      updateSettings: systems.updateSettings.bind(systems),
    };
    const refused = await contractErrorOf(
      createUpdateSettings({ systems: racing })('alice', record.id, {
        settings: { nodes: { api: { servers: 3 } } },
      }),
    );
    expect([refused.code, refused.message]).toEqual([
      'INVALID_REQUEST',
      'settings.nodes.api.servers: servers serve requests of some serviceTime; give "serviceTime" too, or drop "servers"',
    ]);
    expect(reads).toBe(2);
    expect((await systems.getRecord('alice', record.id))!.settings).toBeUndefined();

    // A refresh between every read and write, three times over: 409, as for a refresh that loses,
    // and nothing written. (The source alternates, so each refresh writes a new version.)
    let turn = 0;
    const restless = {
      get: async (owner: string, id: string) => {
        const read = await systems.get(owner, id);
        answer(turn++ % 2 === 0 ? shop : { ...shop, nodes: [shop.nodes[0]!, { id: 'db', exit: 2 }] });
        await refresh('alice', record.id, {});
        return read;
      },
      updateSettings: systems.updateSettings.bind(systems),
    };
    const gaveUp = await contractErrorOf(
      createUpdateSettings({ systems: restless })('alice', record.id, { settings: { defaultCapacity: 9 } }),
    );
    expect(gaveUp.code).toBe('SYSTEM_CHANGED');
    expect(turn).toBe(3);
    expect((await systems.getRecord('alice', record.id))!.settings).toBeUndefined();
  });

  // The warning names at most five vanished ids, each as a path keeps a key: whole up to 256
  // characters, else its ends (a 5,000-character id cost the answer 5,000).
  it('names a long vanished id by its ends', async () => {
    const long = `svc-${'x'.repeat(5000)}-end`;
    const { api, answer } = await changingApi({
      nodes: [{ id: 'A', load: 1 }, { id: long }],
      dependencies: [{ from: 'A', to: long }],
    });
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'w',
        url: api.origin,
        settings: { nodes: { [long]: { capacity: 3 } } },
      }),
    );
    answer({ nodes: [{ id: 'A', load: 1 }], dependencies: [] });
    const { system: refreshed } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    const [warning] = refreshed.warnings!.filter((w) => w.startsWith('settings name'));
    expect(warning).toBe(
      `settings name 1 node no longer in the structure (kept): "svc-${'x'.repeat(124)}…${'x'.repeat(123)}-end"`,
    );
  });

  // A refresh keeps the settings whole and says which of them name nodes that are gone.
  it('keeps settings across a refresh and reports the ones whose node vanished', async () => {
    const { api, answer } = await changingApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'w',
        url: api.origin,
        settings: { nodes: { B: { capacity: 3 }, C: { capacity: 9 } } },
      }),
    );
    answer({
      nodes: [{ id: 'A', load: 1 }, { id: 'B' }],
      dependencies: [{ from: 'A', to: 'B' }],
    });
    const { system: refreshed } = await createRefreshSystem({ systems, limits, outbound })(
      'alice',
      record.id,
      {},
    );
    expect(refreshed.settings).toEqual({ nodes: { B: { capacity: 3 }, C: { capacity: 9 } } });
    expect(refreshed.warnings).toEqual(['settings name 1 node no longer in the structure (kept): "C"']);

    // Read, change, PATCH back (the explorer's editor sends every entry it read): the kept entry
    // goes back as read, while an entry for another node the structure lacks is still refused,
    // and so is the kept one changed: it cannot be checked against its node (3 disagrees with
    // servers / serviceTime once C is back, and every run would fail).
    const update = createUpdateSettings({ systems });
    const patched = await update('alice', record.id, {
      settings: { nodes: { B: { capacity: 4 }, C: { capacity: 9 } } },
    });
    expect(patched.system.settings).toEqual({ nodes: { B: { capacity: 4 }, C: { capacity: 9 } } });
    const changedKept = await contractErrorOf(
      update('alice', record.id, {
        settings: { nodes: { B: { capacity: 4 }, C: { capacity: 3, servers: 2, serviceTime: 10 } } },
      }),
    );
    expect(changedKept.message).toBe(
      'settings.nodes.C names no node of the structure: a refresh removed the node, and its entry, kept, may be sent back as read or left out, not changed',
    );
    const stranger = await contractErrorOf(
      update('alice', record.id, { settings: { nodes: { C: { capacity: 9 }, D: { capacity: 1 } } } }),
    );
    expect(stranger.message).toBe('settings.nodes.D names no node of the structure');
    expect((await systems.getRecord('alice', record.id))!.settings).toEqual({
      nodes: { B: { capacity: 4 }, C: { capacity: 9 } },
    });
    // Rivals that keep C, landing between every read and write: 412 after three tries, saying
    // what this PATCH was asking (it said If-None-Match, which it had not sent).
    let rivals = 0;
    const restless = {
      get: async (owner: string, id: string) => {
        const read = await systems.get(owner, id);
        rivals++;
        await update('alice', record.id, {
          settings: { nodes: { B: { capacity: 10 + rivals }, C: { capacity: 9 } } },
        });
        return read;
      },
      updateSettings: systems.updateSettings.bind(systems),
    };
    const outrun = await contractErrorOf(
      createUpdateSettings({ systems: restless })('alice', record.id, {
        settings: { nodes: { B: { capacity: 6 }, C: { capacity: 9 } } },
      }),
    );
    expect([outrun.code, outrun.message]).toEqual([
      'PRECONDITION_FAILED',
      "The system's settings kept changing while this PATCH was sending back the entries they keep for nodes a refresh removed; nothing was written: GET the system, then PATCH again.",
    ]);
    expect(rivals).toBe(3);
    // Taken because the settings read hold it, the kept entry is written only onto them: a rival
    // PATCH that drops C between this one's read and its write makes it read again, and C is then
    // an entry for a node the structure lacks (it came back before).
    let reads = 0;
    const racing = {
      get: async (owner: string, id: string) => {
        const read = await systems.get(owner, id);
        if (reads++ === 0) await update('alice', record.id, { settings: { nodes: { B: { capacity: 5 } } } });
        return read;
      },
      updateSettings: systems.updateSettings.bind(systems),
    };
    const raced = await contractErrorOf(
      createUpdateSettings({ systems: racing })('alice', record.id, {
        settings: { nodes: { B: { capacity: 6 }, C: { capacity: 9 } } },
      }),
    );
    expect(raced.message).toBe('settings.nodes.C names no node of the structure');
    expect(reads).toBe(2);
    expect((await systems.getRecord('alice', record.id))!.settings).toEqual({
      nodes: { B: { capacity: 5 } },
    });
    // Sent back before any rival, it stays (the state the later steps start from).
  });
});

describe('systems', () => {
  // Another user's system and a missing one answer alike: nobody learns which ids exist.
  it("lists, gets and deletes only the owner's systems", async () => {
    const api = await externalApi(WORKED);
    const systems = systemsStore();
    const record = registered(
      await createConnectSystem({ systems, limits, outbound })('alice', {
        name: 'worked',
        url: api.origin,
      }),
    );

    expect((await createListSystems({ systems })('alice')).systems.map((s) => s.id)).toEqual([record.id]);
    expect((await createListSystems({ systems })('bob')).systems).toEqual([]);
    expect((await createGetSystem({ systems })('alice', record.id)).system.structure).toEqual(WORKED);

    const missing = await contractErrorOf(createGetSystem({ systems })('bob', record.id));
    expect(missing.code).toBe('SYSTEM_NOT_FOUND');
    const notBobs = await contractErrorOf(createDeleteSystem({ systems })('bob', record.id));
    expect(notBobs.code).toBe('SYSTEM_NOT_FOUND');

    await createDeleteSystem({ systems })('alice', record.id);
    expect((await createListSystems({ systems })('alice')).systems).toEqual([]);
  });

  it('answers a page size that is not a number with INVALID_REQUEST naming limit', async () => {
    const error = await contractErrorOf(
      createListSystems({ systems: systemsStore() })('alice', { limit: Number.NaN }),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('limit');
  });
});

describe('API keys', () => {
  // The key is shown once, at creation: listing gives its id and prefix, never the key or digest.
  it('creates, lists and revokes a key for its owner only', async () => {
    const keys = new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName });
    const created = await createCreateKey({ keys })('alice', { name: 'CI pipeline' });
    expect(created.key).toMatch(/^sbe_/);
    expect(created).not.toHaveProperty('owner');

    const listed = await createListKeys({ keys })('alice');
    expect(listed.keys.map((key) => key.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const notBobs = await contractErrorOf(createRevokeKey({ keys })('bob', created.id));
    expect(notBobs.code).toBe('KEY_NOT_FOUND');
    await createRevokeKey({ keys })('alice', created.id);
    const [revoked] = (await createListKeys({ keys })('alice')).keys;
    expect(revoked?.revokedAt).toBeDefined();
  });

  it('refuses a key name with a control character, naming the field', async () => {
    const keys = new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName });
    const error = await contractErrorOf(createCreateKey({ keys })('alice', { name: 'a\u0007b' }));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^name must be 1-100 characters/);
  });
});
