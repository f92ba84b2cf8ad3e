/**
 * The largest registration connect takes: an external API on 127.0.0.1 answers 100,000 nodes and
 * 500,000 dependencies (the engine's default limits, ~17 MB of JSON), plain and gzipped; the
 * connect use case fetches it, reads and checks it, and stores it in DynamoDB (dynalite, in this
 * process). Reports the time and the peak memory of the process while it runs, against the
 * connect function's memory setting. Talks to 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { FUNCTION_SIZING } from '../infra/functions';
import { createConnectSystem } from '../lib/app/connect-system';
import { readLimits } from '../lib/config/limits';
import { readConnectAllowHosts } from '../lib/outbound/allow-hosts';
import { DynamoSystemStore } from '../lib/systems';
import { startTestDatabase } from '../test/helpers/dynalite';
import { generateStructure } from './generate';

export interface RegistrationRun {
  encoding: 'identity' | 'gzip';
  wireBytes: number;
  jsonBytes: number;
  ms: number;
  /** Largest resident set seen while it ran (sampled every 5 ms), and the growth over the start. */
  peakRssBytes: number;
  rssGrowthBytes: number;
  nodes: number;
  dependencies: number;
}

export interface RegistrationResult {
  runs: RegistrationRun[];
  connectMemoryMb: number;
}

/**
 * The connect use case over a local table, allowed to fetch from 127.0.0.1 only (and every name
 * resolved there): what the registration benches run.
 */
export function loopbackConnect(db: Awaited<ReturnType<typeof startTestDatabase>>) {
  return createConnectSystem({
    systems: new DynamoSystemStore({ doc: db.doc, tableName: db.tableName }),
    limits: readLimits({}),
    outbound: {
      allowHosts: readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: '127.0.0.1' }),
      resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
      deadlineMs: 15_000,
    },
  });
}

export async function benchRegistration(): Promise<RegistrationResult> {
  const structure = generateStructure({ shape: 'random', nodeCount: 100_000, dependencyCount: 500_000 });
  const json = Buffer.from(JSON.stringify(structure));
  const gzipped = gzipSync(json);
  const server = createServer((request, response) => {
    const gzip = request.url === '/gzip';
    response.writeHead(200, {
      'content-type': 'application/json',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    response.end(gzip ? gzipped : json);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const db = await startTestDatabase();
  try {
    const connect = loopbackConnect(db);
    const runs: RegistrationRun[] = [];
    for (const encoding of ['identity', 'gzip'] as const) {
      globalThis.gc?.();
      const startRss = process.memoryUsage().rss;
      let peak = startRss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      const started = performance.now();
      const answer = await connect('bench', {
        name: `registration ${encoding}`,
        url: `http://127.0.0.1:${port}/${encoding === 'gzip' ? 'gzip' : 'plain'}`,
      });
      const ms = performance.now() - started;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      if ('dryRun' in answer) throw new Error('expected a registration');
      runs.push({
        encoding,
        wireBytes: encoding === 'gzip' ? gzipped.length : json.length,
        jsonBytes: json.length,
        ms,
        peakRssBytes: peak,
        rssGrowthBytes: peak - startRss,
        nodes: answer.nodes,
        dependencies: answer.dependencies,
      });
    }
    return { runs, connectMemoryMb: FUNCTION_SIZING.connect.memoryMb };
  } finally {
    await db.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
