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

interface RunResult {
  engine: { nodes: unknown[]; dependencies: unknown[] };
}
