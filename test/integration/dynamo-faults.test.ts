/**
 * DynamoDB faults at every call position of every route that writes, over real HTTP, with
 * DynamoDB's own error answers injected by a proxy in front of dynalite.
 *
 * For each operation the calls it makes are counted once without faults; then the operation is
 * run again once per position with that call failing through every retry (each position a
 * different fault: throttles, 500, 503, a hanging attempt, a dropped connection), and once more
 * with that call applied by DynamoDB but its answer lost (the SDK retries and meets its own
 * write). Afterwards, with the faults gone, the owner's data is read back: a system is there
 * complete or not at all, a refresh that failed left the old version, a failed delete left the
 * system whole, and a 503 always carried Retry-After and the contract's error body.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import type { DynamoErrorName, Fault, FaultRule, ProxiedCall } from '../helpers/fault-proxy';
import { type FaultService, startFaultService } from '../helpers/fault-service';
import { type Answer, post } from './server';

let service: FaultService;

beforeAll(async () => {
  // 200-byte chunks: the structures below are stored as several chunks, so chunk writes,
  // reads and deletes each have positions of their own.
  service = await startFaultService({ chunkBytes: 200, attemptTimeoutMs: 500 });
});

afterAll(() => service.close());

/** A structure big enough for several chunks, and a second one to refresh to. */
function chain(length: number, load: number) {
  const nodes = Array.from({ length }, (_, index) => ({
    id: `service-${index}`,
    load: index === 0 ? load : 0,
  }));
  const dependencies = nodes.slice(1).map((node, index) => ({ from: nodes[index]!.id, to: node.id }));
  return { nodes, dependencies };
}
const ORIGINAL = chain(60, 5);
const CHANGED = chain(90, 7);

const ERRORS: DynamoErrorName[] = [
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
];

/** The fault for call position `k` when it fails through every retry. */
function persistentFault(k: number): Fault {
  // A hanging attempt costs three attempt timeouts: used on a few positions only.
  if (k % 7 === 3) return { kind: 'hang' };
  if (k % 7 === 5) return { kind: 'reset' };
  return { kind: 'error', error: ERRORS[k % ERRORS.length]! };
}

const failAt =
  (k: number): FaultRule =>
  (call) =>
    call.index === k ? persistentFault(k) : undefined;
const lostAnswerAt =
  (k: number): FaultRule =>
  (call, attempt) =>
    call.index === k && attempt === 1
      ? { kind: 'appliedThenError', error: 'InternalServerError' }
      : undefined;

let owners = 0;
const newOwner = () => `owner-${++owners}`;

const call = (owner: string, method: string, path: string, body?: unknown) =>
  post(service.url, service.token(owner), body, { method, path });

/**
 * A quota hold's last write (commit or abort: `REMOVE hold_…`). It is best effort: when it fails
 * the change stands and the counter overcounts until the owner is reconciled.
 */
const endsQuotaHold = (call: ProxiedCall | undefined) =>
  call?.operation === 'UpdateItem' &&
  call.body.Key.sk.S === 'QUOTA' &&
  String(call.body.UpdateExpression).startsWith('REMOVE');

/**
 * The owner's quota counter against what they hold: never below it (a crash may only overcount),
 * and exact with no hold left when every change ended (`exact`).
 */
async function expectCounter(owner: string, exact: boolean) {
  const { Item } = await service.doc.send(
    new GetCommand({
      TableName: service.tableName,
      Key: { pk: `OWNER#${owner}`, sk: 'QUOTA' },
      ConsistentRead: true,
    }),
  );
  const held = {
    ...(await service.stores.systems.usage(owner)),
    keys: await service.stores.keys.activeCount(owner),
  };
  for (const name of ['systems', 'keys', 'bytes'] as const) {
    if (exact) expect(Item?.[name] ?? 0).toBe(held[name]);
    else expect(Item?.[name] ?? 0).toBeGreaterThanOrEqual(held[name]);
  }
  if (exact) expect(Object.keys(Item ?? {}).filter((name) => name.startsWith('hold_'))).toEqual([]);
}

function expectUnavailable(answer: Answer) {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('2');
  expect(answer.json.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(answer.json.error.message).toMatch(/try again/);
}

/**
 * Runs `operation` once without faults to count its DynamoDB calls, then once per position with
 * `rule(k)`, each on a fresh owner prepared by `setup`, and hands each outcome to `check`.
 */
async function atEveryPosition<T>(
  setup: (owner: string) => Promise<T>,
  operation: (owner: string, prepared: T) => Promise<Answer>,
  rule: (k: number) => FaultRule,
  check: (outcome: {
    owner: string;
    prepared: T;
    answer: Answer;
    k: number;
    calls: ProxiedCall[];
  }) => Promise<void>,
): Promise<number> {
  const counted = newOwner();
  const preparedForCount = await setup(counted);
  service.proxy.reset();
  const clean = await operation(counted, preparedForCount);
  const positions = service.proxy.calls.length;
  expect(positions).toBeGreaterThan(0);
  for (let k = 0; k < positions; k++) {
    const owner = newOwner();
    service.proxy.reset();
    const prepared = await setup(owner);
    service.proxy.reset(rule(k));
    const answer = await operation(owner, prepared);
    const calls = service.proxy.calls;
    service.proxy.reset();
    if (calls[k] === undefined) {
      // This run made fewer calls than the count, so no call was at position k and no fault
      // was injected: it must answer as the count's run did. (On a busy machine an attempt can
      // outlast the 500 ms attempt timeout after DynamoDB applied it; its retry then meets its
      // own conditional write and the store takes the longer way, so counts differ by timing.)
      expect(answer.status).toBe(clean.status);
      continue;
    }
    await check({ owner, prepared, answer, k, calls });
  }
  return positions;
}

/** The owner's systems as a listing shows them, each read back whole. */
async function systemsOf(owner: string) {
  const listed = await call(owner, 'GET', '/api/systems');
  expect(listed.status).toBe(200);
  const systems = [];
  for (const record of listed.json.systems) {
    const full = await call(owner, 'GET', `/api/systems/${record.id}`);
    expect(full.status).toBe(200);
    systems.push(full.json);
  }
  return systems;
}

const register = (owner: string, structure = ORIGINAL) =>
  call(owner, 'POST', '/api/systems', { name: 'chain', document: structure });

const nothing = async () => undefined;

describe('registering a system under faults', () => {
  const routesThatRegister: Array<[string, (owner: string) => Promise<Answer>]> = [
    ['POST /api/systems', (owner) => register(owner)],
    [
      'POST /api/connect',
      (owner) => {
        service.documents.set('/connect.json', JSON.stringify(ORIGINAL));
        return call(owner, 'POST', '/api/connect', { name: 'chain', url: `${service.url}/connect.json` });
      },
    ],
  ];

  // The system is complete or absent: never a head without its chunks, never a 500.
  it.each(routesThatRegister)(
    '%s: a fault at any call is a 503 and stores no system',
    async (_route, run) => {
      const positions = await atEveryPosition(nothing, run, failAt, async ({ owner, answer, k, calls }) => {
        if (endsQuotaHold(calls[k])) {
          expect(answer.status).toBe(201);
          expect(await systemsOf(owner)).toMatchObject([{ id: answer.json.id, structure: ORIGINAL }]);
        } else {
          expectUnavailable(answer);
          expect(await systemsOf(owner)).toEqual([]);
        }
        await expectCounter(owner, false);
      });
      // Several chunk puts, then the head.
      expect(positions).toBeGreaterThanOrEqual(3);
    },
  );

  it.each(routesThatRegister)('%s: a lost answer is retried into one whole system', async (_route, run) => {
    await atEveryPosition(nothing, run, lostAnswerAt, async ({ owner, answer }) => {
      expect(answer.status).toBe(201);
      const [stored, ...others] = await systemsOf(owner);
      expect(others).toEqual([]);
      expect(stored).toMatchObject({ id: answer.json.id, structure: ORIGINAL });
      await expectCounter(owner, true);
    });
  });
});

describe('refreshing a system under faults', () => {
  const setup = async (owner: string) => {
    const path = `/refresh-${owner}.json`;
    service.documents.set(path, JSON.stringify(ORIGINAL));
    const connected = await call(owner, 'POST', '/api/connect', {
      name: 'chain',
      url: `${service.url}${path}`,
    });
    expect(connected.status).toBe(201);
    service.documents.set(path, JSON.stringify(CHANGED));
    return connected.json.id as string;
  };
  const refresh = (owner: string, id: string) => call(owner, 'POST', `/api/systems/${id}/refresh`, {});

  // Until the head is switched the old version stands; once it is, the refresh has happened
  // even if removing the old chunks fails (they are left for the sweep).
  it('keeps the old version whole when a fault stops it, and never shows a mix', async () => {
    let refused = 0;
    await atEveryPosition(setup, refresh, failAt, async ({ owner, answer, prepared: id }) => {
      const [stored] = await systemsOf(owner);
      if (answer.status === 503) {
        expectUnavailable(answer);
        refused++;
        expect(stored).toMatchObject({ id, structure: ORIGINAL });
        expect(stored.version ?? 1).toBe(1);
      } else {
        expect(answer.status).toBe(200);
        expect(stored).toMatchObject({ id, structure: CHANGED, version: 2 });
      }
      await expectCounter(owner, false);
    });
    expect(refused).toBeGreaterThan(2);
  });

  it('takes a lost answer as its own write', async () => {
    await atEveryPosition(setup, refresh, lostAnswerAt, async ({ owner, answer, prepared: id }) => {
      expect(answer.status).toBe(200);
      const [stored] = await systemsOf(owner);
      expect(stored).toMatchObject({ id, structure: CHANGED, version: 2 });
      await expectCounter(owner, true);
    });
  });
});

describe('deleting a system under faults', () => {
  const setup = async (owner: string) => {
    const registered = await register(owner);
    expect(registered.status).toBe(201);
    return registered.json.id as string;
  };
  const remove = (owner: string, id: string) => call(owner, 'DELETE', `/api/systems/${id}`);

  // The head goes first: a fault there leaves the system whole; after it, the system is gone
  // and its chunks are left for the sweep.
  it('leaves the system whole or deletes it, at every position', async () => {
    await atEveryPosition(setup, remove, failAt, async ({ owner, answer, k, calls, prepared: id }) => {
      const systems = await systemsOf(owner);
      // Up to and including the head's DeleteItem (absent when an earlier call failed).
      const head = calls.findIndex((call) => call.operation === 'DeleteItem');
      if (head === -1 || k <= head) {
        expectUnavailable(answer);
        expect(systems).toMatchObject([{ id, structure: ORIGINAL }]);
      } else {
        expect(answer.status).toBe(204);
        expect(systems).toEqual([]);
      }
    });
  });

  it('answers 204 when the head delete’s answer was lost, and removes the chunks', async () => {
    await atEveryPosition(setup, remove, lostAnswerAt, async ({ owner, answer, prepared: id }) => {
      expect(answer.status).toBe(204);
      expect(await systemsOf(owner)).toEqual([]);
      const { Items = [] } = await service.doc.send(
        new ScanCommand({
          TableName: service.tableName,
          FilterExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `SYSTEM#${id}` },
        }),
      );
      expect(Items).toEqual([]);
      await expectCounter(owner, false);
    });
  });
});

describe('changing settings under faults', () => {
  const setup = async (owner: string) => (await register(owner)).json.id as string;
  const patch = (owner: string, id: string) =>
    call(owner, 'PATCH', `/api/systems/${id}`, { settings: { defaultCapacity: 3 } });

  it('changes them or leaves them as they were', async () => {
    await atEveryPosition(setup, patch, failAt, async ({ owner, answer }) => {
      expectUnavailable(answer);
      const [stored] = await systemsOf(owner);
      expect(stored.settings).toBeUndefined();
      expect(stored.structure).toEqual(ORIGINAL);
    });
    await atEveryPosition(setup, patch, lostAnswerAt, async ({ owner, answer }) => {
      expect(answer.status).toBe(200);
      const [stored] = await systemsOf(owner);
      expect(stored.settings).toEqual({ defaultCapacity: 3 });
    });
  });
});

describe('API keys under faults', () => {
  const create = (owner: string) => call(owner, 'POST', '/api/keys', { name: 'ci' });
  const keysOf = async (owner: string) => (await call(owner, 'GET', '/api/keys')).json.keys;

  it('creates a key or none', async () => {
    await atEveryPosition(nothing, create, failAt, async ({ owner, answer, k, calls }) => {
      if (endsQuotaHold(calls[k])) {
        expect(answer.status).toBe(201);
        expect(await keysOf(owner)).toMatchObject([{ id: answer.json.id, status: 'active' }]);
      } else {
        expectUnavailable(answer);
        expect(await keysOf(owner)).toEqual([]);
      }
    });
    await atEveryPosition(nothing, create, lostAnswerAt, async ({ owner, answer }) => {
      expect(answer.status).toBe(201);
      expect(await keysOf(owner)).toMatchObject([{ id: answer.json.id, status: 'active' }]);
      const engine = await post(service.url, answer.json.key, { mode: 'analyze', ...WORKED_EXAMPLE });
      expect(engine.status).toBe(200);
      await expectCounter(owner, true);
    });
  });

  const setup = async (owner: string) => {
    const created = await create(owner);
    expect(created.status).toBe(201);
    return created.json as { id: string; key: string };
  };
  const revoke = (owner: string, key: { id: string }) => call(owner, 'DELETE', `/api/keys/${key.id}`);

  it('revokes a key or leaves it working', async () => {
    await atEveryPosition(setup, revoke, failAt, async ({ owner, answer, prepared, k, calls }) => {
      if (endsQuotaHold(calls[k])) {
        expect(answer.status).toBe(204);
        expect(await keysOf(owner)).toMatchObject([{ id: prepared.id, status: 'revoked' }]);
      } else {
        expectUnavailable(answer);
        expect(await keysOf(owner)).toMatchObject([{ id: prepared.id, status: 'active' }]);
        const engine = await post(service.url, prepared.key, { mode: 'analyze', ...WORKED_EXAMPLE });
        expect(engine.status).toBe(200);
      }
    });
    await atEveryPosition(setup, revoke, lostAnswerAt, async ({ owner, answer, prepared }) => {
      expect(answer.status).toBe(204);
      expect(await keysOf(owner)).toMatchObject([{ id: prepared.id, status: 'revoked' }]);
      await expectCounter(owner, false);
    });
  });
});

describe('reading under faults', () => {
  // Listing and reading write nothing: a fault is simply a 503, and the next try works.
  it('answers 503 on every read route, then the data as it was', async () => {
    const owner = newOwner();
    const id = (await register(owner)).json.id as string;
    expect((await call(owner, 'POST', '/api/keys', { name: 'r' })).status).toBe(201);
    const reads: Array<[string, string]> = [
      ['GET', '/api/systems'],
      ['GET', `/api/systems/${id}`],
      ['GET', '/api/keys'],
    ];
    for (const [method, path] of reads) {
      service.proxy.reset(() => ({ kind: 'error', error: 'ProvisionedThroughputExceededException' }));
      expectUnavailable(await call(owner, method, path));
      service.proxy.reset();
      expect((await call(owner, method, path)).status).toBe(200);
    }
  });
});

describe('the engine under faults', () => {
  const setup = async (owner: string) => {
    const created = await call(owner, 'POST', '/api/keys', { name: 'engine' });
    const registered = await register(owner);
    return { key: created.json.key as string, id: registered.json.id as string };
  };

  // The key lookup failing is the store's fault, not the caller's: 503, never 403.
  it('answers 503, never 403, when the key lookup fails', async () => {
    const { key } = await setup(newOwner());
    for (const error of ERRORS) {
      service.proxy.reset((call) =>
        call.operation === 'GetItem' && String(call.body.Key.pk.S).startsWith('APIKEY#')
          ? { kind: 'error', error }
          : undefined,
      );
      expectUnavailable(await post(service.url, key, { mode: 'analyze', ...WORKED_EXAMPLE }));
    }
    service.proxy.reset();
    expect((await post(service.url, key, { mode: 'analyze', ...WORKED_EXAMPLE })).status).toBe(200);
  });

  // By id: the key, the head, the chunks. Each failing is a 503; lastUsedAt's write is best
  // effort and never fails the request.
  it('answers a run by id at every position', async () => {
    const run = (_owner: string, prepared: { key: string; id: string }) =>
      post(service.url, prepared.key, { mode: 'analyze', systemId: prepared.id });
    await atEveryPosition(setup, run, failAt, async ({ answer, k, calls }) => {
      if (calls[k]?.operation === 'UpdateItem') {
        expect(answer.status).toBe(200);
      } else {
        expectUnavailable(answer);
      }
    });
  });
});
