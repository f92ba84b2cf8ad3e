/**
 * The service over real HTTP with its DynamoDB behind a fault proxy: both functions, built as
 * their handlers build them, served by the local server's HTTP adapter, their table reached only
 * through `startFaultProxy`, with retries that do not sleep. Tests choose which DynamoDB calls
 * fail and read the table directly (not through the proxy) to see what was left behind.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createConnectFunction } from '../../functions/connect/connect-function';
import { createEngineFunction } from '../../functions/engine/engine-function';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { readLimits } from '../../lib/config/limits';
import { readQuotas } from '../../lib/config/quotas';
import { type FunctionName, routes } from '../../lib/http/routes';
import { createApiKeyVerifier } from '../../lib/keys';
import { createLogger } from '../../lib/logging';
import { readConnectAllowHosts } from '../../lib/outbound/allow-hosts';
import { createOwnerStores, type OwnerStores } from '../../lib/owners/stores';
import { isStoreUnavailable } from '../../lib/storage/faults';
import { ensureTable } from '../../lib/storage/table';
import { createUserTokenVerifier, loadOrCreateLocalIssuer, signAccessToken } from '../../lib/tokens';
import { createHttpAdapter, type HttpApiHandler } from '../../local/http-adapter';
import { type RunningDynalite, startDynalite } from './dynalite';
import { type FaultProxy, startFaultProxy } from './fault-proxy';

export interface FaultService {
  url: string;
  proxy: FaultProxy;
  /** The table itself, not through the proxy. */
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** An access token for `sub`. */
  token(sub: string): string;
  /** Upstream documents served at `${url}<path>`, changeable between requests. */
  documents: Map<string, string>;
  /** The functions' stores and quotas (through the proxy). */
  stores: OwnerStores;
  /** Moves the quotas' clock on (holds become stale after an hour). */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

export interface FaultServiceOptions {
  /** Extra environment the functions read (quotas). */
  env?: Record<string, string>;
  /** Chunk size of the system store: small, so that small structures are stored in chunks. */
  chunkBytes?: number;
  /** Attempt timeout of the proxied client; short, so that a hanging attempt fails fast. */
  attemptTimeoutMs?: number;
}

export async function startFaultService(options: FaultServiceOptions = {}): Promise<FaultService> {
  const dynalite: RunningDynalite = await startDynalite();
  const proxy = await startFaultProxy(dynalite.endpoint);
  const tableName = 'service';
  const direct = createDynamoClients({ endpoint: dynalite.endpoint, region: 'us-east-1', env: {} });
  await ensureTable(direct.client, tableName);
  const proxied = createDynamoClients({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    env: {},
    retry: { retryDelayMs: () => 1, attemptTimeoutMs: options.attemptTimeoutMs ?? 300 },
  });
  const env = { ...options.env };
  const { doc } = proxied;
  const logger = createLogger({ env: { LOG_LEVEL: 'SILENT' } });
  const issuerFile = join(mkdtempSync(join(tmpdir(), 'sbe-fault-issuer-')), 'local-issuer.json');
  const issuer = loadOrCreateLocalIssuer(issuerFile);
  let clock = Date.now();
  const { keys, systems, quotas } = createOwnerStores({
    doc,
    tableName,
    quotas: readQuotas(env),
    chunkBytes: options.chunkBytes ?? 300_000,
    now: () => clock,
  });
  const verifier = createApiKeyVerifier(keys, { cacheTtlMs: 0, onBackgroundError: () => undefined });
  const limits = readLimits(env);
  const handlers: Record<FunctionName, HttpApiHandler> = {
    engine: createEngineFunction({
      logger,
      isUnavailable: isStoreUnavailable,
      verifyApiKey: (presented) => verifier.verify(presented),
      limits,
      systems,
    }) as HttpApiHandler,
    connect: createConnectFunction({
      logger,
      isUnavailable: isStoreUnavailable,
      verifyUserToken: createUserTokenVerifier({ kind: 'local', issuerFile }),
      keys,
      systems,
      limits,
      outbound: {
        allowHosts: readConnectAllowHosts({ CONNECT_ALLOW_HOSTS: '127.0.0.1' }),
        deadlineMs: 5_000,
      },
    }) as HttpApiHandler,
  };
  const documents = new Map<string, string>();
  const server: Server = createServer(
    createHttpAdapter({
      routes: routes.map((route) => ({ ...route, handler: handlers[route.function] })),
      maxBodyBytes: limits.maxBodyBytes,
      sampleDocuments: documents,
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    proxy,
    doc: direct.doc,
    tableName,
    token: (sub) => signAccessToken(issuer, { sub }),
    documents,
    stores: { keys, systems, quotas },
    advanceClock: (ms) => {
      clock += ms;
    },
    close: async () => {
      await verifier.settled();
      verifier.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxied.client.destroy();
      direct.client.destroy();
      await proxy.close();
      await dynalite.close();
    },
  };
}
