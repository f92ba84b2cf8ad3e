/**
 * A registration that fails after it wrote its chunks leaves nothing behind: its chunks are
 * removed and its quota hold released before it answers, so the owner can register again at
 * once. Before, each failure left megabytes of chunks and a counted system for an hour (until the
 * sweep), and a user could repeat it until the quota refused everything.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DynamoErrorName } from '../helpers/fault-proxy';
import { type FaultService, startFaultService } from '../helpers/fault-service';
import { post } from './server';

let service: FaultService;

beforeAll(async () => {
  // 16 KB chunks: a 20k-node document is stored as a few dozen of them.
  service = await startFaultService({
    env: { MAX_SYSTEMS_PER_OWNER: '5', MAX_BYTES_PER_OWNER: String(50 * 1024 * 1024) },
    chunkBytes: 16_384,
  });
});

afterAll(() => service.close());

/** 20,000 services in a tree, with ids that compress poorly. */
const DOCUMENT = (() => {
  const nodes = Array.from({ length: 20_000 }, (_, index) => ({
    id: `svc-${((index * 2654435761) >>> 0).toString(36)}-${index}`,
  }));
  const dependencies = nodes.slice(1).map((node, index) => ({ from: nodes[index >> 1]!.id, to: node.id }));
  return { nodes, dependencies };
})();

const register = (name: string, document: unknown = DOCUMENT) =>
  post(service.url, service.token('carol'), { name, document }, { path: '/api/systems' });

async function tableItems() {
  const { Items = [] } = await service.doc.send(new ScanCommand({ TableName: service.tableName }));
  return Items;
}

it('leaves no chunk and no count behind after six failed registrations', async () => {
  for (let index = 0; index < 4; index++) {
    expect((await register(`small ${index}`, { nodes: [{ id: 'A' }], dependencies: [] })).status).toBe(201);
  }
  // The owner is one system below the limit. Six registrations fail at the head write, after all
  // their chunks: refused by DynamoDB (a 500), or throttled through every retry (a 503).
  const failures: DynamoErrorName[] = ['ValidationException', 'ThrottlingException', 'InternalServerError'];
  for (let attempt = 0; attempt < 6; attempt++) {
    const error = failures[attempt % failures.length]!;
    service.proxy.reset((call) =>
      call.operation === 'PutItem' && String(call.body.Item?.sk?.S).startsWith('SYSTEM#')
        ? { kind: 'error', error }
        : undefined,
    );
    const answer = await register(`big ${attempt}`);
    expect(answer.status, answer.text).toBe(error === 'ValidationException' ? 500 : 503);
    const chunkWrites = service.proxy.calls.filter(
      (call) => call.operation === 'PutItem' && String(call.body.Item?.sk?.S).startsWith('CHUNK#'),
    );
    expect(chunkWrites.length).toBeGreaterThan(5);
  }
  service.proxy.reset(() => undefined);

  // Nothing of the six: no chunk partition without its head, no hold, the counter exact.
  const items = await tableItems();
  const heads = new Set(items.filter((item) => String(item.sk).startsWith('SYSTEM#')).map((item) => item.id));
  const orphans = items.filter(
    (item) => String(item.sk).startsWith('CHUNK#') && !heads.has(String(item.pk).slice(7)),
  );
  expect(orphans).toEqual([]);
  const counter = items.find((item) => item.pk === 'OWNER#carol' && item.sk === 'QUOTA');
  expect(counter).toMatchObject({ systems: 4 });
  expect(Object.keys(counter ?? {}).filter((name) => name.startsWith('hold_'))).toEqual([]);

  // So the fifth system registers, and a sixth is refused by the quota, not by leftovers.
  const fifth = await register('big, at last');
  expect(fifth.status, fifth.text).toBe(201);
  expect(fifth.json.nodes).toBe(20_000);
  const sixth = await register('one too many', { nodes: [{ id: 'A' }], dependencies: [] });
  expect(sixth.status).toBe(409);
  expect(sixth.json.error.code).toBe('QUOTA_EXCEEDED');
  const chunks = (await tableItems()).filter((item) => String(item.sk).startsWith('CHUNK#'));
  expect(new Set(chunks.map((item) => item.pk))).toEqual(new Set([`SYSTEM#${fifth.json.id}`]));
}, 120_000);
