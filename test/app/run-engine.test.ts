/**
 * The run-engine use case, without any HTTP: inline structures, and `{ mode, systemId }` with
 * the warm-instance cache: a repeated run takes the compiled structure (and, for the same mode
 * and tick count, the answer) kept by hash, answers byte for byte as the first, and still checks
 * the owner every time.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import { createRunEngine } from '../../lib/app';
import { readLimits } from '../../lib/config/limits';
import { CompiledStructureCache, type StoredSystem, type SystemStore } from '../../lib/systems';
import { WORKED } from '../http/events';

const ID = '01JABCDEFGHJKMNPQRSTVWXYZ0';
const text = JSON.stringify(WORKED);

/** One system of alice's in memory, counting the reads that fetch a structure. */
function memoryStore() {
  const calls = { get: 0, getRecord: 0 };
  const record = {
    id: ID,
    owner: 'alice',
    name: 'worked',
    url: 'https://example.com/s',
    nodes: 3,
    dependencies: 3,
    createdAt: '2026-01-01T00:00:00.000Z',
    sha256: createHash('sha256').update(text).digest('hex'),
  };
  const store: Pick<SystemStore, 'get' | 'getRecord'> = {
    async get(owner, id) {
      calls.get++;
      // A fresh parse each time, as a real read gives.
      return owner === 'alice' && id === ID
        ? ({ record, structure: JSON.parse(text) } as StoredSystem)
        : undefined;
    },
    async getRecord(owner, id) {
      calls.getRecord++;
      return owner === 'alice' && id === ID ? record : undefined;
    },
  };
  return { store, calls };
}

function handlerFor(store: Pick<SystemStore, 'get' | 'getRecord'>, cache?: CompiledStructureCache) {
  return createRunEngine({
    systems: store,
    limits: readLimits({}),
    ...(cache === undefined ? {} : { cache }),
  });
}

/** The answer as the route would send it: the body on success, the contract's error otherwise. */
async function run(runEngine: ReturnType<typeof handlerFor>, body: unknown, key = 'sbe_alice') {
  const owner = key === 'sbe_bob' ? 'bob' : 'alice';
  try {
    return { statusCode: 200, body: (await runEngine({ body, owner })).json };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { statusCode: error.status, body: JSON.stringify({ error: { code: error.code } }) };
  }
}

describe('run engine on stored systems, with the cache', () => {
  it('reads the structure once, then answers repeats from the cache with the same bytes', async () => {
    const { store, calls } = memoryStore();
    const handler = handlerFor(store, new CompiledStructureCache(64 * 1024 * 1024));
    const inline = await run(handler, { mode: 'ticks', ticks: 4, ...WORKED });
    const first = await run(handler, { mode: 'ticks', ticks: 4, systemId: ID });
    const second = await run(handler, { mode: 'ticks', ticks: 4, systemId: ID });
    const analyzed = await run(handler, { mode: 'analyze', systemId: ID });
    expect(first.body).toBe(inline.body);
    expect(second.body).toBe(inline.body);
    expect(analyzed.body).toBe((await run(handler, { mode: 'analyze', ...WORKED })).body);
    expect(calls).toEqual({ get: 1, getRecord: 3 });
  });

  // The answer is kept beside the structure, per mode and tick count: a repeat of the same
  // request is the kept text, another tick count is computed (and kept) on its own.
  it('keeps each answer by mode and tick count, and answers repeats with it', async () => {
    const { store } = memoryStore();
    const cache = new CompiledStructureCache(64 * 1024 * 1024);
    const handler = handlerFor(store, cache);
    const sha256 = createHash('sha256').update(text).digest('hex');
    const four = await run(handler, { mode: 'ticks', ticks: 4, systemId: ID });
    expect(cache.getAnswer(sha256, 'ticks 4')).toBe(four.body);
    expect(cache.getAnswer(sha256, 'ticks 5')).toBeUndefined();
    const five = await run(handler, { mode: 'ticks', ticks: 5, systemId: ID });
    expect(five.body).toBe((await run(handler, { mode: 'ticks', ticks: 5, ...WORKED })).body);
    expect(cache.getAnswer(sha256, 'ticks 5')).toBe(five.body);
    // Inline structures are never kept: they have no stored hash to be known by.
    const sizeBefore = cache.bytes;
    await run(handler, { mode: 'analyze', ...WORKED });
    expect(cache.bytes).toBe(sizeBefore);
  });

  // Bob sends alice's system id: the record read says no, whatever the cache holds.
  it('still answers 404 to another owner once the structure is cached', async () => {
    const { store } = memoryStore();
    const handler = handlerFor(store, new CompiledStructureCache(64 * 1024 * 1024));
    expect((await run(handler, { mode: 'analyze', systemId: ID })).statusCode).toBe(200);
    const bob = await run(handler, { mode: 'analyze', systemId: ID }, 'sbe_bob');
    expect(bob.statusCode).toBe(404);
    expect(JSON.parse(bob.body).error.code).toBe('SYSTEM_NOT_FOUND');
  });

  it('checks mode and ticks before reading anything, cache or not', async () => {
    const { store, calls } = memoryStore();
    const handler = handlerFor(store, new CompiledStructureCache(64 * 1024 * 1024));
    const bad = await run(handler, { mode: 'ticks', ticks: 0, systemId: ID });
    expect(JSON.parse(bad.body).error.code).toBe('INVALID_TICKS');
    expect(calls).toEqual({ get: 0, getRecord: 0 });
  });

  it('without a cache reads the structure every time', async () => {
    const { store, calls } = memoryStore();
    const handler = handlerFor(store);
    await run(handler, { mode: 'analyze', systemId: ID });
    await run(handler, { mode: 'analyze', systemId: ID });
    expect(calls).toEqual({ get: 2, getRecord: 0 });
  });
});
