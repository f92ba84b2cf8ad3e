/**
 * The run-engine use case, without any HTTP: inline structures, and `{ mode, systemId }` with
 * the warm-instance cache: a repeated run takes the compiled structure (and, for the same mode
 * and tick count, the answer) kept by hash, answers byte for byte as the first, and still checks
 * the owner every time.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import { applySettings } from '../../lib/api/system-settings';
import { createRunEngine } from '../../lib/app/run-engine';
import { readLimits } from '../../lib/config/limits';
import {
  CompiledStructureCache,
  type StoredSystem,
  type SystemSettings,
  type SystemStore,
} from '../../lib/systems';
import { settingsKey } from '../../lib/systems/settings';
import { editedStructure } from '../engine/scenario-arbitraries';
import { WORKED } from '../http/events';

const ID = '01JABCDEFGHJKMNPQRSTVWXYZ0';
const text = JSON.stringify(WORKED);

/** One system of alice's in memory, counting the reads that fetch a structure. */
function memoryStore(settings?: SystemSettings) {
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
    ...(settings === undefined ? {} : { settings }),
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

describe('scenarios on stored systems', () => {
  // The system's settings give B a capacity of 3 and A an arrival of 2; the scenario then halves
  // B's capacity to 1.5 and cuts A → C. The answer is the inline answer of the structure with
  // the settings applied and then the scenario's edit, and the baseline is the settings' answer.
  const settings: SystemSettings = { nodes: { B: { capacity: 3 }, A: { arrival: 2 } } };
  const scenario = {
    nodes: { B: { capacity: 1.5 } },
    dependencies: [{ from: 'A', to: 'C', cut: true as const }],
  };
  const withSettings = applySettings(WORKED, settings) as typeof WORKED;

  it('applies the scenario on top of the settings, byte for byte the inline answer', async () => {
    const { store, calls } = memoryStore(settings);
    const cache = new CompiledStructureCache(64 * 1024 * 1024);
    const handler = handlerFor(store, cache);
    const byId = await run(handler, { mode: 'analyze', systemId: ID, scenario });
    expect(byId.statusCode).toBe(200);
    const inline = await run(handler, { mode: 'analyze', ...editedStructure(withSettings, scenario) });
    expect(byId.body).toBe(inline.body);
    expect(JSON.parse(byId.body).engine.nodes[1].capacity).toBe(1.5);

    // Compare: the baseline is the stored system as it runs (settings applied).
    const compared = JSON.parse(
      (await run(handler, { mode: 'analyze', systemId: ID, scenario, compare: true })).body,
    );
    const plain = JSON.parse((await run(handler, { mode: 'analyze', systemId: ID })).body);
    expect(compared.baseline).toEqual(plain.engine);
    expect(compared.engine).toEqual(JSON.parse(inline.body).engine);
    expect(compared.changes.primaryBlockage).toEqual({
      before: plain.engine.primaryBlockage,
      after: compared.engine.primaryBlockage,
    });
    // The stored structure was read and compiled once; scenario answers are not kept.
    expect(calls.get).toBe(1);
    const key = `${(await store.getRecord('alice', ID))!.sha256}+${settingsKey(settings)}`;
    expect(cache.getAnswer(key, 'analyze')).toBe(JSON.stringify(plain));
  });

  it('names ids the stored structure does not hold', async () => {
    const { store } = memoryStore(settings);
    const handler = handlerFor(store, new CompiledStructureCache(64 * 1024 * 1024));
    const answer = await run(handler, {
      mode: 'tick',
      systemId: ID,
      scenario: { nodes: { Z: { down: true } } },
    });
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body).error.code).toBe('PAYLOAD_ERROR');
  });

  it('refuses compare without a scenario on a stored system too', async () => {
    const { store } = memoryStore();
    const answer = await run(handlerFor(store), { mode: 'analyze', systemId: ID, compare: true });
    expect(answer.statusCode).toBe(500);
  });
});

describe('the time a body left', () => {
  // Decompressing and parsing a body cannot be stopped: a 64 MiB one of distinct keys took most
  // of the 15 s, and checking and compiling it asked nothing, so its 413 came past the timeout.
  // The time is asked before the body is checked now: with 0.5 s left the answer is the 413 that
  // names the limit, before the body's own mistake (an unknown node) is even found.
  it('stops before checking the body when what is left would not cover an answer', async () => {
    const run = createRunEngine({ limits: readLimits({}) });
    const body = {
      mode: 'analyze',
      nodes: [{ id: 'a', arrival: 1 }],
      dependencies: [{ from: 'a', to: 'missing' }],
      scenario: { scale: 2 },
      compare: true,
    };
    const stopped = await run({ body, remainingTimeMs: () => 500, timeLimitMs: 15_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(stopped).toBeInstanceOf(ApiError);
    expect((stopped as ApiError).code).toBe('LIMIT_EXCEEDED');
    expect((stopped as ApiError).message).toBe(
      'The run could not begin within this request\'s time limit (15 s): what came before it (the key checked, the body decoded and read) took most of it; send a smaller structure or leave out "compare" (extra fields on nodes and dependencies included: the answer returns them as they were sent).',
    );
    // With time, the mistake is said.
    const refused = await run({ body, remainingTimeMs: () => 14_000, timeLimitMs: 15_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refused as ApiError).code).toBe('PAYLOAD_ERROR');
  });
});
