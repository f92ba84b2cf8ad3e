import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { ensureTable } from '../../lib/storage/table';
import { type FaultProxy, startFaultProxy } from './fault-proxy';

/** dynalite ships no types; this is the part of its API the tests use. */
type DynaliteFactory = (options: {
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}) => Server;
const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;

export interface RunningDynalite {
  /** e.g. `http://127.0.0.1:54321` */
  endpoint: string;
  close(): Promise<void>;
}

/** An in-memory DynamoDB on a free loopback port. Tables become ACTIVE at once. */
export async function startDynalite(): Promise<RunningDynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // The SDK keeps connections alive; without this, close waits for them to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface TestTable {
  endpoint: string;
  tableName: string;
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  /** Release the clients (the dynalite server is closed separately, or by `TestDatabase.close`). */
  close(): Promise<void>;
}

/** Clients for `endpoint` and a new, empty, uniquely named table in the service's table layout. */
async function openTestTable(endpoint: string, tableName = `test-${randomUUID()}`): Promise<TestTable> {
  const { client, doc } = createDynamoClients({ endpoint, region: 'us-east-1' });
  await ensureTable(client, tableName);
  return {
    endpoint,
    tableName,
    client,
    doc,
    close: async () => client.destroy(),
  };
}

/**
 * For a test file whose every test wants an empty table: one dynalite for the file, a new
 * table per test. Call at the top level; the returned object always refers to the current
 * test's table.
 */
export function useFreshTable(): TestTable {
  let server: RunningDynalite;
  let current: TestTable;
  beforeAll(async () => {
    server = await startDynalite();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    current = await openTestTable(server.endpoint);
  });
  afterEach(() => current.close());
  return {
    get endpoint() {
      return current.endpoint;
    },
    get tableName() {
      return current.tableName;
    },
    get client() {
      return current.client;
    },
    get doc() {
      return current.doc;
    },
    close: () => current.close(),
  };
}

export type TestDatabase = TestTable;

/**
 * dynalite plus one fresh table, for a test file:
 *   let db: TestDatabase;
 *   beforeAll(async () => { db = await startTestDatabase(); });
 *   afterAll(() => db.close());
 * For a table per test, call `openTestTable(db.endpoint)` and close it afterwards.
 */
export async function startTestDatabase(): Promise<TestDatabase> {
  const server = await startDynalite();
  const table = await openTestTable(server.endpoint);
  return {
    ...table,
    close: async () => {
      await table.close();
      await server.close();
    },
  };
}

export interface ProxiedTable {
  /** Records every call (its wire request) and fails the ones a test chooses. */
  proxy: FaultProxy;
  /** A document client that reaches the table only through `proxy`, retrying without sleeping. */
  doc: DynamoDBDocumentClient;
  close(): Promise<void>;
}

/** `table` behind a fault proxy: to see what a store sends, or to make DynamoDB fail as it does. */
export async function throughFaultProxy(
  table: TestTable,
  options: { attemptTimeoutMs?: number } = {},
): Promise<ProxiedTable> {
  const proxy = await startFaultProxy(table.endpoint);
  const { client, doc } = createDynamoClients({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    env: {},
    retry: { retryDelayMs: () => 1, ...options },
  });
  return {
    proxy,
    doc,
    close: async () => {
      client.destroy();
      await proxy.close();
    },
  };
}

/**
 * `doc`, except that each BatchWriteItem writes only the requests `answer` picks and reports the
 * rest unprocessed, as DynamoDB does under load.
 */
export function withBatchAnswer(
  doc: DynamoDBDocumentClient,
  tableName: string,
  answer: (requests: unknown[]) => { processed: unknown[]; unprocessed: unknown[] },
): DynamoDBDocumentClient {
  return new Proxy(doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
        if (!(command instanceof BatchWriteCommand)) return target.send(command);
        const requests = command.input.RequestItems?.[tableName] ?? [];
        const { processed, unprocessed } = answer(requests);
        if (processed.length > 0) {
          await target.send(
            new BatchWriteCommand({ RequestItems: { [tableName]: processed as typeof requests } }),
          );
        }
        return { UnprocessedItems: unprocessed.length === 0 ? {} : { [tableName]: unprocessed } };
      };
    },
  });
}
