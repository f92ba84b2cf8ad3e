import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { DynamoSystemStore } from '../../lib/systems';
import { useFreshTable } from '../helpers/dynalite';
import { generatedStructure } from './structures';

const table = useFreshTable();

// The largest structure the engine accepts: 100,000 nodes and 500,000 dependencies, 20 MB of
// JSON and 3 MB compressed, so it must go over several chunk items and come back byte for byte.
it('stores a structure at the engine limits in chunks and reads back the same JSON', async () => {
  const structure = generatedStructure(100_000, 500_000);
  expect(compileStructure(structure).nodeCount).toBe(100_000);
  const json = JSON.stringify(structure);
  const store = new DynamoSystemStore({
    doc: table.doc,
    tableName: table.tableName,
    newId: monotonicFactory(() => 0.5),
  });

  const record = await store.create(
    { owner: 'alice', name: 'at the limits', url: 'https://big.example.com/structure', structure },
    new Date('2026-03-01T12:00:00.000Z'),
  );
  expect(record).toMatchObject({ nodes: 100_000, dependencies: 500_000 });

  const { Item: head } = await table.client.send(
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: 'OWNER#alice' }, sk: { S: `SYSTEM#${record.id}` } },
      ProjectionExpression: 'chunkCount, byteLength',
    }),
  );
  const chunkCount = Number(head?.chunkCount?.N);
  expect(chunkCount).toBeGreaterThan(1);
  expect(chunkCount).toBe(Math.ceil(Number(head?.byteLength?.N) / 300_000));
  // Counting also stops at 1 MB read per page, so follow the pages.
  let chunkItems = 0;
  const pages = paginateQuery(
    { client: table.doc },
    {
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `SYSTEM#${record.id}` },
      Select: 'COUNT',
    },
  );
  for await (const page of pages) chunkItems += page.Count ?? 0;
  expect(chunkItems).toBe(chunkCount);

  const read = await store.get('alice', record.id);
  expect(read?.record).toEqual(record);
  // A plain comparison: on a mismatch, a diff of two 20 MB strings would help nobody.
  expect(JSON.stringify(read?.structure) === json).toBe(true);
});
