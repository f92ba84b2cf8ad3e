/**
 * The local server answers small requests while the engine works: two analyses of a large
 * structure (25,000 nodes, 125,000 dependencies, sent gzipped) run in the engine's worker
 * threads, and meanwhile a small GET is sent again and again, each answered by the main thread.
 * Their latencies are recorded in the test's annotation; how fast they must be is measured by
 * `npm run load -- --scenario busy` (docs/benchmark.md) on the largest structure the limits allow
 * (100,000 nodes, 500,000 dependencies), never asserted here. The behaviour is the same at a
 * quarter of the size, in a quarter of the time.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateStructure, requestText } from '../../bench/generate';
import { rawRequest, startTestServer, type TestServer } from '../integration/server';
import { startFakeApi } from '../outbound/fake-api';

let server: TestServer;

beforeAll(async () => {
  // Two workers whatever the machine has, so the two analyses run side by side.
  server = await startTestServer({ LOG_LEVEL: 'WARN', ENGINE_WORKERS: '2' });
});

afterAll(() => server.close());

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const NODES = 25_000;
const DEPENDENCIES = 125_000;

it('answers small GETs while two 25k-node / 125k-dependency analyses run', { timeout: 180_000 }, async ({
  annotate,
}) => {
  const structure = generateStructure({
    shape: 'random',
    nodeCount: NODES,
    dependencyCount: DEPENDENCIES,
    // As in the largest answerable structure: mostly idle, so the answer stays small.
    variant: { zeroLoadFraction: 0.99 },
  });
  const body = gzipSync(requestText(structure));
  const analyze = () =>
    rawRequest(server.url, {
      method: 'POST',
      path: '/api/engine',
      headers: {
        authorization: `Bearer ${server.apiKey}`,
        'content-type': 'application/octet-stream',
        'content-encoding': 'gzip',
        // As a client of the full-size analysis must (its ~32 MB fit 6 MiB only compressed).
        'accept-encoding': 'br',
      },
      body,
    });

  // The answers are kept as they arrive (still compressed): decoding them here, in the thread
  // that also runs the server, would hold up the GETs being measured.
  let pending = 2;
  const analyses = [analyze(), analyze()].map((answer) => answer.finally(() => pending--));
  const latencies: number[] = [];
  const statuses = new Set<number>();
  while (pending > 0) {
    const started = performance.now();
    const answer = await rawRequest(server.url, {
      method: 'GET',
      path: '/api/systems',
      headers: { authorization: `Bearer ${server.userToken}` },
    });
    latencies.push(performance.now() - started);
    statuses.add(answer.status);
    await sleep(10);
  }

  for (const answer of await Promise.all(analyses)) {
    expect(answer.status, answer.bytes.subarray(0, 300).toString()).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    const result = JSON.parse(brotliDecompressSync(answer.bytes).toString('utf8')) as RunResult;
    expect(result.engine.nodes).toHaveLength(NODES);
    expect(result.engine.dependencies).toHaveLength(DEPENDENCIES);
  }
  expect(latencies.length).toBeGreaterThan(0);
  expect([...statuses]).toEqual([200]);

  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  await annotate(
    `${latencies.length} GET /api/systems during two 25k/125k analyses: p50 ${ms(percentile(sorted, 50))}, ` +
      `p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1)!)} (recorded, not asserted)`,
  );
});

// A connect dry run reads, checks and analyzes the document it fetched: seconds of work on a large
// one, in a worker of the connect function, as the engine's runs are. Once the document has been
// sent in full (the parse and the analysis begin), GETs sent meanwhile are answered before the dry
// run is: in the main thread they waited behind it, 12 s behind a settings check.
it('answers small GETs while a connect dry run reads and analyzes a 25k-node document', {
  timeout: 180_000,
}, async () => {
  const document = requestText(
    generateStructure({ shape: 'random', nodeCount: NODES, dependencyCount: DEPENDENCIES }),
  );
  let sent = false;
  const api = await startFakeApi((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(document, () => {
      sent = true;
    });
  });
  try {
    let pending = true;
    const dryRun = rawRequest(server.url, {
      method: 'POST',
      path: '/api/connect',
      headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'large', url: `${api.origin}/graph.json`, dryRun: true }),
    }).finally(() => {
      pending = false;
    });
    let answeredWhileReading = 0;
    const statuses = new Set<number>();
    while (pending) {
      const afterSending = sent;
      const answer = await rawRequest(server.url, {
        method: 'GET',
        path: '/api/systems',
        headers: { authorization: `Bearer ${server.userToken}` },
      });
      statuses.add(answer.status);
      if (afterSending && pending) answeredWhileReading++;
      await sleep(10);
    }
    const answer = await dryRun;
    expect(answer.status, answer.bytes.subarray(0, 300).toString()).toBe(200);
    expect(JSON.parse(answer.bytes.toString('utf8'))).toMatchObject({ dryRun: true, nodes: NODES });
    expect([...statuses]).toEqual([200]);
    expect(answeredWhileReading).toBeGreaterThanOrEqual(2);
  } finally {
    await api.close();
  }
});

// Connect's requests mostly wait on an upstream: two dry runs whose upstream answers only once the
// registration has (up to 20 s) hold no worker a quick registration needs (8 by default, where one
// per CPU held it behind them). A fixed 3 s upstream flaked on a loaded machine, where the
// registration's own worker took that long to start.
it('registers a small system while two connects wait on a slow upstream', { timeout: 60_000 }, async () => {
  const held: Array<() => void> = [];
  const slow = await startFakeApi((_request, response) => {
    const answer = () => {
      if (response.writableEnded) return;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ nodes: [{ id: 'a' }], dependencies: [] }));
    };
    held.push(answer);
    setTimeout(answer, 20_000).unref();
  });
  try {
    let waiting = 2;
    const dryRuns = [1, 2].map(() =>
      rawRequest(server.url, {
        method: 'POST',
        path: '/api/connect',
        headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'slow', url: `${slow.origin}/graph.json`, dryRun: true }),
      }).finally(() => waiting--),
    );
    while (slow.requests.length < 2) await sleep(20);
    const registration = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/systems',
      headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'quick', document: { nodes: [{ id: 'x' }], dependencies: [] } }),
    });
    const stillWaiting = waiting;
    for (const answer of held) answer();
    expect(registration.status, registration.bytes.toString()).toBe(201);
    expect(stillWaiting).toBe(2);
    for (const answer of await Promise.all(dryRuns)) expect(answer.status).toBe(200);
  } finally {
    await slow.close();
  }
});

interface RunResult {
  engine: { nodes: unknown[]; dependencies: unknown[] };
}
