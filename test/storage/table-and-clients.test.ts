import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { ensureTable, TABLE_KEYS } from '../../lib/storage/table';
import { type RunningDynalite, startDynalite } from '../helpers/dynalite';

// The storage and client modules are tested here because they were written for API keys; they are
// shared by everything that uses the table.

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.close());
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('ensureTable', () => {
  it('creates the single table (pk/sk strings, on demand) and is a no-op the second time', async () => {
    const { client } = createDynamoClients({ endpoint: dynalite.endpoint });
    try {
      await ensureTable(client, 'ensure-once');
      await ensureTable(client, 'ensure-once');
      const { Table } = await client.send(new DescribeTableCommand({ TableName: 'ensure-once' }));
      expect(Table?.TableStatus).toBe('ACTIVE');
      expect(Table?.KeySchema).toEqual([
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ]);
      expect(Table?.AttributeDefinitions).toEqual([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]);
      expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    } finally {
      client.destroy();
    }
  });

  it('refuses an existing table with different keys instead of writing into it', async () => {
    const { client } = createDynamoClients({ endpoint: dynalite.endpoint });
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'wrong-keys',
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await expect(ensureTable(client, 'wrong-keys')).rejects.toThrow(
        'table "wrong-keys" exists with key schema id:HASH, expected pk:HASH,sk:RANGE',
      );
    } finally {
      client.destroy();
    }
  });

  it('exports the keys as plain data a CDK Table can take (AttributeType.STRING is "S")', () => {
    expect(TABLE_KEYS).toEqual({
      partitionKey: { name: 'pk', type: 'S' },
      sortKey: { name: 'sk', type: 'S' },
    });
  });
});

describe('createDynamoClients', () => {
  it('with a local endpoint and no access keys in the environment, signs with dummy credentials', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    vi.stubEnv('AWS_REGION', '');
    const { client, doc } = createDynamoClients({ endpoint: dynalite.endpoint });
    try {
      expect(await client.config.credentials()).toMatchObject({
        accessKeyId: 'local',
        secretAccessKey: 'local',
      });
      expect(await client.config.region()).toBe('us-east-1');
      expect(doc.config).toBe(client.config);
    } finally {
      client.destroy();
    }
  });

  it('keeps access keys from the environment (DynamoDB Local keeps one database per key)', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example-secret');
    const { client } = createDynamoClients({ endpoint: dynalite.endpoint, region: 'eu-west-1' });
    try {
      expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'AKIDEXAMPLE' });
      expect(await client.config.region()).toBe('eu-west-1');
    } finally {
      client.destroy();
    }
  });

  it('takes the endpoint from DYNAMODB_ENDPOINT when no option is given, and it works', async () => {
    vi.stubEnv('DYNAMODB_ENDPOINT', dynalite.endpoint);
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    const { client } = createDynamoClients();
    try {
      const endpoint = await client.config.endpoint?.();
      expect(`${endpoint?.protocol}//${endpoint?.hostname}:${endpoint?.port}`).toBe(dynalite.endpoint);
      await ensureTable(client, 'via-env-endpoint');
    } finally {
      client.destroy();
    }
  });
});
