import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';

/**
 * The service's single table. Every entity shares it and is told apart by its keys, e.g.
 * API keys `pk = "APIKEY#<sha256hex>", sk = "APIKEY"`, systems `pk = "OWNER#<owner>", sk = "SYSTEM#<id>"`.
 * The definition is plain data so the CDK stack and `ensureTable` build the same table.
 */
export const TABLE_KEYS = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
} as const;

/**
 * Partition key prefixes, one per kind of partition; every item's `pk` starts with one of them.
 * The deployed stack lets each function reach only the partitions it uses (IAM's
 * `dynamodb:LeadingKeys`), so a new kind of item gets its prefix here, not in its store.
 */
export const PARTITION_PREFIXES = {
  /** One API key: `APIKEY#<sha256hex>`. */
  apiKey: 'APIKEY#',
  /** One owner's items: the index entries of their API keys and the heads of their systems. */
  owner: 'OWNER#',
  /** One stored system's chunks: `SYSTEM#<id>`. */
  system: 'SYSTEM#',
} as const;

const TABLE_BILLING_MODE = 'PAY_PER_REQUEST' as const;

/** `KeySchema` for CreateTable, derived from `TABLE_KEYS`. */
const TABLE_KEY_SCHEMA = [
  { AttributeName: TABLE_KEYS.partitionKey.name, KeyType: 'HASH' },
  { AttributeName: TABLE_KEYS.sortKey.name, KeyType: 'RANGE' },
] as const;

/** `AttributeDefinitions` for CreateTable, derived from `TABLE_KEYS`. */
const TABLE_ATTRIBUTE_DEFINITIONS = [
  { AttributeName: TABLE_KEYS.partitionKey.name, AttributeType: TABLE_KEYS.partitionKey.type },
  { AttributeName: TABLE_KEYS.sortKey.name, AttributeType: TABLE_KEYS.sortKey.type },
] as const;

export { LOCAL_DYNAMO_PORT, LOCAL_TABLE_NAME } from './local-table';

export interface EnsureTableOptions {
  /** Give up waiting for ACTIVE after this long. Default 60 s. */
  timeoutMs?: number;
  /** Pause between DescribeTable polls. Default 100 ms. */
  pollIntervalMs?: number;
}

/**
 * Create the table if it does not exist, then wait until it is ACTIVE. Meant for local and test
 * tables; deployed tables belong to the CDK stack. An existing table with other keys is refused
 * rather than silently used, because every item written to it would land in the wrong place.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const existing = await describeTable(client, tableName);
  if (existing === undefined) {
    await createTable(client, tableName);
  } else {
    assertSameKeys(existing, tableName);
  }
  await waitUntilActive(client, tableName, { timeoutMs, pollIntervalMs });
}

async function describeTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<TableDescription | undefined> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        KeySchema: TABLE_KEY_SCHEMA.map((key) => ({ ...key })),
        AttributeDefinitions: TABLE_ATTRIBUTE_DEFINITIONS.map((attribute) => ({ ...attribute })),
        BillingMode: TABLE_BILLING_MODE,
      }),
    );
  } catch (error) {
    // Another process (a second test worker, the local server) created it first: that is fine.
    if (error instanceof ResourceInUseException) return;
    throw error;
  }
}

function assertSameKeys(table: TableDescription, tableName: string): void {
  const actual = (table.KeySchema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(',');
  const expected = TABLE_KEY_SCHEMA.map((key) => `${key.AttributeName}:${key.KeyType}`).join(',');
  if (actual !== expected) {
    throw new Error(`table "${tableName}" exists with key schema ${actual || 'none'}, expected ${expected}`);
  }
}

async function waitUntilActive(
  client: DynamoDBClient,
  tableName: string,
  { timeoutMs, pollIntervalMs }: Required<EnsureTableOptions>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const table = await describeTable(client, tableName);
    if (table?.TableStatus === 'ACTIVE') return;
    if (Date.now() >= deadline) {
      throw new Error(
        `table "${tableName}" is ${table?.TableStatus ?? 'missing'} after ${timeoutMs} ms, expected ACTIVE`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}
