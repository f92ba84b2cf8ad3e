/**
 * Per-owner quotas over real HTTP: small limits (5 systems, 3 keys, a few kilobytes), so each
 * limit is reached by a handful of requests. The counter item is read directly to check that
 * deletes, revokes and refreshes keep it equal to what the owner holds.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readQuotas } from '../../lib/config/quotas';
import { type FaultService, startFaultService } from '../helpers/fault-service';
import { type Answer, post } from './server';

let service: FaultService;
const MAX_BYTES = 6000;

beforeAll(async () => {
  service = await startFaultService({
    env: { MAX_SYSTEMS_PER_OWNER: '5', MAX_KEYS_PER_OWNER: '3', MAX_BYTES_PER_OWNER: String(MAX_BYTES) },
    // Twenty requests at once on a shared machine: no attempt should time out here.
    attemptTimeoutMs: 10_000,
  });
});

afterAll(() => service.close());

const call = (owner: string, method: string, path: string, body?: unknown) =>
  post(service.url, service.token(owner), body, { method, path });

/** A structure whose compressed size grows with `length` (random-looking ids compress poorly). */
function structure(length: number) {
  const nodes = Array.from({ length }, (_, index) => ({
    id: `n${((index * 2654435761) >>> 0).toString(36)}${index}`,
    load: index % 7,
  }));
  const dependencies = nodes.slice(1).map((node, index) => ({ from: nodes[index]!.id, to: node.id }));
  return { nodes, dependencies };
}

const register = (owner: string, size = 3) =>
  call(owner, 'POST', '/api/systems', { name: `s${size}`, document: structure(size) });

async function counterOf(owner: string) {
  const { Item } = await service.doc.send(
    new GetCommand({
      TableName: service.tableName,
      Key: { pk: `OWNER#${owner}`, sk: 'QUOTA' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** The counter's totals next to what the owner holds by the API's own account. */
async function expectCounterExact(owner: string) {
  const systems = (await call(owner, 'GET', '/api/systems?limit=100')).json.systems as Array<{ id: string }>;
  const keys = (await call(owner, 'GET', '/api/keys')).json.keys as Array<{ status: string }>;
  const counter = await counterOf(owner);
  expect(counter).toMatchObject({
    systems: systems.length,
    keys: keys.filter((key) => key.status === 'active').length,
    bytes: (await service.stores.systems.usage(owner)).bytes,
  });
  expect(Object.keys(counter ?? {}).filter((name) => name.startsWith('hold_'))).toEqual([]);
}

function expectQuotaExceeded(answer: Answer, quota: string, limitText: RegExp) {
  expect(answer.status).toBe(409);
  expect(answer.json.error.code).toBe('QUOTA_EXCEEDED');
  expect(answer.json.error.message).toMatch(limitText);
  expect(answer.json.error.details).toEqual([{ path: `quota.${quota}`, message: expect.any(String) }]);
}

describe('the defaults', () => {
  it('are 100 systems, 20 keys and 1 GiB per owner, each settable', () => {
    expect(readQuotas({})).toEqual({ maxSystems: 100, maxKeys: 20, maxBytes: 1024 ** 3 });
    expect(readQuotas({ MAX_KEYS_PER_OWNER: '7' }).maxKeys).toBe(7);
    expect(() => readQuotas({ MAX_SYSTEMS_PER_OWNER: '0' })).toThrow(/MAX_SYSTEMS_PER_OWNER/);
    expect(() => readQuotas({ MAX_BYTES_PER_OWNER: '1e9' })).toThrow(/MAX_BYTES_PER_OWNER/);
  });
});

describe('the systems quota', () => {
  // Twenty registrations at once against a limit of five: exactly five land.
  it('holds under 20 parallel connects', async () => {
    const owner = 'racer';
    service.documents.set('/race.json', JSON.stringify(structure(3)));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call(owner, 'POST', '/api/connect', { name: `race ${index}`, url: `${service.url}/race.json` }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    const refused = answers.find((answer) => answer.status === 409)!;
    expectQuotaExceeded(refused, 'systems', /5 systems.*DELETE \/api\/systems\/\{id\}/);
    expect((await call(owner, 'GET', '/api/systems')).json.systems).toHaveLength(5);
    await expectCounterExact(owner);
  });

  // A delete makes room for exactly one more.
  it('frees a place on delete', async () => {
    const owner = 'deleter';
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await register(owner)).json.id);
    expectQuotaExceeded(await register(owner), 'systems', /5 systems/);
    expect((await call(owner, 'DELETE', `/api/systems/${ids[0]}`)).status).toBe(204);
    await expectCounterExact(owner);
    expect((await register(owner)).status).toBe(201);
    expectQuotaExceeded(await register(owner), 'systems', /5 systems/);
    await expectCounterExact(owner);
  });
});

describe('the stored-bytes quota', () => {
  it('counts compressed bytes, refuses past the limit and follows a refresh', async () => {
    const owner = 'grower';
    const path = `/grow-${owner}.json`;
    service.documents.set(path, JSON.stringify(structure(20)));
    const connected = await call(owner, 'POST', '/api/connect', {
      name: 'grows',
      url: `${service.url}${path}`,
    });
    expect(connected.status).toBe(201);
    await expectCounterExact(owner);
    const small = (await counterOf(owner))!.bytes as number;

    // Refreshed to something larger, then smaller: the counter follows the stored size.
    service.documents.set(path, JSON.stringify(structure(200)));
    expect((await call(owner, 'POST', `/api/systems/${connected.json.id}/refresh`, {})).status).toBe(200);
    await expectCounterExact(owner);
    expect((await counterOf(owner))!.bytes).toBeGreaterThan(small);
    service.documents.set(path, JSON.stringify(structure(20)));
    expect((await call(owner, 'POST', `/api/systems/${connected.json.id}/refresh`, {})).status).toBe(200);
    await expectCounterExact(owner);
    expect((await counterOf(owner))!.bytes).toBe(small);

    // Too large for what is left: refused, and nothing is stored or counted.
    const huge = await register(owner, 2000);
    expectQuotaExceeded(huge, 'bytes', new RegExp(`${MAX_BYTES} bytes`));
    service.documents.set(path, JSON.stringify(structure(2000)));
    const refused = await call(owner, 'POST', `/api/systems/${connected.json.id}/refresh`, {});
    expectQuotaExceeded(refused, 'bytes', /DELETE \/api\/systems/);
    expect((await call(owner, 'GET', `/api/systems/${connected.json.id}`)).json.structure).toEqual(
      structure(20),
    );
    await expectCounterExact(owner);
  });
});

describe('the keys quota', () => {
  // Revoked keys stay listed but no longer count.
  it('counts active keys; a revoke frees a place', async () => {
    const owner = 'keyholder';
    const created = [];
    for (let index = 0; index < 3; index++) {
      const answer = await call(owner, 'POST', '/api/keys', { name: `k${index}` });
      expect(answer.status).toBe(201);
      created.push(answer.json);
    }
    expectQuotaExceeded(
      await call(owner, 'POST', '/api/keys', { name: 'one more' }),
      'keys',
      /3 active API keys.*DELETE \/api\/keys\/\{id\}/,
    );
    expect((await call(owner, 'DELETE', `/api/keys/${created[0].id}`)).status).toBe(204);
    // Revoking twice frees nothing more.
    expect((await call(owner, 'DELETE', `/api/keys/${created[0].id}`)).status).toBe(204);
    await expectCounterExact(owner);
    expect((await call(owner, 'POST', '/api/keys', { name: 'replacement' })).status).toBe(201);
    expect((await call(owner, 'POST', '/api/keys', { name: 'too many' })).status).toBe(409);
    await expectCounterExact(owner);
  });

  it('holds under parallel creates', async () => {
    const owner = 'keyracer';
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => call(owner, 'POST', '/api/keys', { name: `k${index}` })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    await expectCounterExact(owner);
  });
});

describe('a change that died between its writes', () => {
  // The head write fails ambiguously (a 500 on every attempt, and the head unreadable): the hold
  // and its count stay, so the owner is overcounted, never under. An hour later the hold is
  // stale and the next refusal recounts: the place comes back by itself.
  it('overcounts until its hold is stale, then heals on the next refusal', async () => {
    const owner = 'crashed';
    for (let index = 0; index < 4; index++) expect((await register(owner)).status).toBe(201);
    // The head write fails, and so does the read that would tell whether it landed: the create
    // cannot know, so its place stays counted (a failure it can tell is given back at once).
    service.proxy.reset((call) =>
      (call.operation === 'PutItem' && String(call.body.Item.sk.S).startsWith('SYSTEM#')) ||
      (call.operation === 'GetItem' && String(call.body.Key.sk.S).startsWith('SYSTEM#'))
        ? { kind: 'error', error: 'InternalServerError' }
        : undefined,
    );
    expect((await register(owner)).status).toBe(503);
    service.proxy.reset();
    expect((await call(owner, 'GET', '/api/systems')).json.systems).toHaveLength(4);
    expect(await counterOf(owner)).toMatchObject({ systems: 5 });
    // Within the hour the place stays taken: the change might still land.
    expectQuotaExceeded(await register(owner), 'systems', /5 systems/);
    service.advanceClock(60 * 60 * 1000 + 1);
    expect((await register(owner)).status).toBe(201);
    await expectCounterExact(owner);
  });

  // An owner from before quotas (or whose counter was lost) is counted from what they hold.
  it('starts a missing counter from what the owner holds', async () => {
    const owner = 'veteran';
    for (let index = 0; index < 3; index++) expect((await register(owner)).status).toBe(201);
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    await service.doc.send(
      new DeleteCommand({ TableName: service.tableName, Key: { pk: `OWNER#${owner}`, sk: 'QUOTA' } }),
    );
    expect((await register(owner)).status).toBe(201);
    await expectCounterExact(owner);
    expect(await counterOf(owner)).toMatchObject({ systems: 4 });
  });
});
