/**
 * The layout of a system's items and how a head item is read back. A head that does not add up
 * is a SystemStorageError naming the item and the attribute, never a record with holes.
 */
import { describe, expect, it } from 'vitest';
import { SystemStorageError } from '../../lib/systems/errors';
import {
  chunkKey,
  chunkRange,
  idOfHeadSortKey,
  payloadFromHeadItem,
  recordFromHeadItem,
} from '../../lib/systems/items';

const ID = '01KJMMA2G0GGGGGGGGGGGGGGGG';
const SHA = 'ab'.repeat(32);
const HEAD = {
  pk: 'OWNER#alice',
  sk: `SYSTEM#${ID}`,
  id: ID,
  owner: 'alice',
  name: 'shop',
  nodes: 3,
  dependencies: 2,
  createdAt: '2026-03-01T12:00:00.000Z',
  sha256: SHA,
};

function storageError(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof SystemStorageError) return error.message;
    throw error;
  }
  throw new Error('expected a SystemStorageError');
}

describe('chunk keys', () => {
  // Version 1 (before refresh existed) keeps its old keys; later versions have their own prefix.
  it('lays chunks out per version', () => {
    expect(chunkKey(ID, 7)).toEqual({ pk: `SYSTEM#${ID}`, sk: 'CHUNK#00007' });
    expect(chunkKey(ID, 7, 1)).toEqual({ pk: `SYSTEM#${ID}`, sk: 'CHUNK#00007' });
    expect(chunkKey(ID, 12, 3)).toEqual({ pk: `SYSTEM#${ID}`, sk: 'CHUNK#v3#00012' });
  });

  // Version 1's range is bounded so that it never takes in a later version's `CHUNK#v…` keys.
  it('queries one version’s chunks only', () => {
    expect(chunkRange(ID, 1)).toEqual({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': `SYSTEM#${ID}`, ':from': 'CHUNK#00000', ':to': 'CHUNK#99999' },
    });
    expect(chunkRange(ID, 2)).toEqual({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `SYSTEM#${ID}`, ':prefix': 'CHUNK#v2#' },
    });
  });

  // A head's sort key names its system; anything else names none.
  it('reads the id of a head sort key', () => {
    expect(idOfHeadSortKey(`SYSTEM#${ID}`)).toBe(ID);
    expect(idOfHeadSortKey(`APIKEY#${ID}`)).toBeUndefined();
    expect(idOfHeadSortKey('SYSTEM#not-an-id')).toBeUndefined();
  });
});

describe('recordFromHeadItem', () => {
  // The smallest head: no url, version, refresh, settings, format or unit (older records).
  it('reads a head with only the required attributes', () => {
    expect(recordFromHeadItem(HEAD)).toStrictEqual({
      id: ID,
      owner: 'alice',
      name: 'shop',
      nodes: 3,
      dependencies: 2,
      createdAt: '2026-03-01T12:00:00.000Z',
      sha256: SHA,
    });
  });

  // Every optional attribute, as a refreshed system with settings stores them.
  it('reads every optional attribute', () => {
    const settings = { defaultCapacity: 5, nodes: { A: { capacity: 2 } } };
    expect(
      recordFromHeadItem({
        ...HEAD,
        url: 'https://api.example.com/graph',
        version: 3,
        refreshedAt: '2026-03-02T12:00:00.000Z',
        settings,
        format: 'cytoscape',
        unit: 'requests/s',
        readOptions: '{"window":300,"sampleRate":0.1,"labels":{"from":"source_app","to":"destination_app"}}',
      }),
    ).toStrictEqual({
      id: ID,
      owner: 'alice',
      name: 'shop',
      url: 'https://api.example.com/graph',
      nodes: 3,
      dependencies: 2,
      createdAt: '2026-03-01T12:00:00.000Z',
      sha256: SHA,
      version: 3,
      refreshedAt: '2026-03-02T12:00:00.000Z',
      settings,
      format: 'cytoscape',
      unit: 'requests/s',
      readOptions: { window: 300, sampleRate: 0.1, labels: { from: 'source_app', to: 'destination_app' } },
    });
  });

  // Read options are their JSON text too (a window of 1e-200 s is past a DynamoDB number), and
  // what does not have their shape is refused, never half-trusted.
  it('reads read options from their JSON text, and refuses any other shape', () => {
    expect(recordFromHeadItem({ ...HEAD, readOptions: '{"window":1e-200}' }).readOptions).toEqual({
      window: 1e-200,
    });
    expect(recordFromHeadItem(HEAD)).not.toHaveProperty('readOptions');
    for (const readOptions of [
      null,
      { window: 3 },
      '[]',
      '{"window":"3"}',
      '{"sampleRate":true}',
      '{"labels":{"from":"a"}}',
      '{"labels":"a"}',
      '{"depth":2}',
      '{"window":',
    ])
      expect(
        storageError(() => recordFromHeadItem({ ...HEAD, readOptions })),
        String(readOptions),
      ).toMatch(/^system item .* has malformed read options$/);
  });

  // Settings are their JSON text, so that every double and every id (`__proto__`) comes back as
  // it was set; heads written before that hold a map, read as it is.
  it('reads settings from their JSON text, and from the map older heads hold', () => {
    const text =
      '{"defaultCapacity":1e+308,"nodes":{"__proto__":{"capacity":9007199254740994},"b":{"arrival":1e-300}}}';
    const read = recordFromHeadItem({ ...HEAD, settings: text }).settings;
    expect(JSON.stringify(read)).toBe(text);
    expect(Object.hasOwn(read?.nodes ?? {}, '__proto__')).toBe(true);
    expect(recordFromHeadItem({ ...HEAD, settings: { defaultCapacity: 3 } }).settings).toEqual({
      defaultCapacity: 3,
    });
    expect(recordFromHeadItem(HEAD)).not.toHaveProperty('settings');
  });

  // Settings that are not an object (edited by hand) are never handed to the engine, nor silently
  // dropped (the engine would run without the owner's capacities): the head is refused.
  it.each([[null], [[]], ['x'], ['[1]'], ['{"defaultCapacity":'], [new Uint8Array(2)], [7]])(
    'refuses settings of %j',
    (settings) => {
      expect(storageError(() => recordFromHeadItem({ ...HEAD, settings }))).toMatch(
        /^system item .* has malformed settings$/,
      );
    },
  );

  // Keys that do not match the attributes: another owner's partition, another id, a bad id.
  it.each<[string, Record<string, unknown>]>([
    ['another owner’s partition', { pk: 'OWNER#mallory' }],
    ['another sort key', { sk: 'SYSTEM#01KJMMA2G0GGGGGGGGGGGGGGGH' }],
    ['an id that is not one', { id: 'nope', sk: 'SYSTEM#nope' }],
  ])('refuses %s', (_what, change) => {
    expect(storageError(() => recordFromHeadItem({ ...HEAD, ...change }))).toMatch(
      /^system item .* has keys that do not match its id and owner$/,
    );
  });

  it('names the item, the attribute and what is wrong with it', () => {
    expect(storageError(() => recordFromHeadItem({ ...HEAD, sha256: 'AB'.repeat(32) }))).toBe(
      `system item SYSTEM#${ID} has a malformed sha256`,
    );
    expect(storageError(() => recordFromHeadItem({ ...HEAD, sha256: `${SHA}0` }))).toContain(
      'malformed sha256',
    );
    expect(storageError(() => recordFromHeadItem({ ...HEAD, sha256: `0${SHA}` }))).toContain(
      'malformed sha256',
    );
    expect(storageError(() => recordFromHeadItem({ ...HEAD, name: 5 }))).toBe(
      `system item SYSTEM#${ID} is missing the string attribute "name"`,
    );
    expect(storageError(() => recordFromHeadItem({ ...HEAD, url: 5 }))).toBe(
      `system item SYSTEM#${ID} has a non-string "url"`,
    );
    for (const nodes of [-1, 1.5, '3', 2 ** 53]) {
      expect(storageError(() => recordFromHeadItem({ ...HEAD, nodes }))).toBe(
        `system item SYSTEM#${ID} is missing the count "nodes"`,
      );
    }
    // The item is named by the first 40 characters of its sort key, or said to have none.
    const { sk: _sk, ...noSortKey } = HEAD;
    expect(storageError(() => recordFromHeadItem({ ...noSortKey, name: 5 }))).toBe(
      'system item (no sort key) has keys that do not match its id and owner',
    );
    expect(storageError(() => recordFromHeadItem({ ...HEAD, sk: `SYSTEM#${'X'.repeat(60)}`, name: 5 }))).toBe(
      `system item SYSTEM#${'X'.repeat(33)} has keys that do not match its id and owner`,
    );
  });
});

describe('payloadFromHeadItem', () => {
  const inline = new Uint8Array([1, 2, 3]);

  // A small structure is stored inline; a large one in chunks, with no inline copy.
  it('reads an inline or a chunked payload', () => {
    expect(
      payloadFromHeadItem({ encoding: 'gzip', byteLength: 3, chunkCount: 0, structure: inline }),
    ).toStrictEqual({ encoding: 'gzip', byteLength: 3, chunkCount: 0, inline });
    expect(payloadFromHeadItem({ encoding: 'gzip', byteLength: 900_000, chunkCount: 3 })).toStrictEqual({
      encoding: 'gzip',
      byteLength: 900_000,
      chunkCount: 3,
      inline: undefined,
    });
  });

  it('refuses a head whose payload does not add up', () => {
    expect(
      storageError(() => payloadFromHeadItem({ sk: 'S', encoding: 'gzip', byteLength: 3, chunkCount: 0 })),
    ).toBe('system item S has no chunks and no inline structure of 3 bytes');
    expect(
      storageError(() =>
        payloadFromHeadItem({ sk: 'S', encoding: 'gzip', byteLength: 4, chunkCount: 0, structure: inline }),
      ),
    ).toBe('system item S has no chunks and no inline structure of 4 bytes');
    expect(
      storageError(() =>
        payloadFromHeadItem({ sk: 'S', encoding: 'gzip', byteLength: 3, chunkCount: 0, structure: 'AQID' }),
      ),
    ).toBe('system item S has no chunks and no inline structure of 3 bytes');
    expect(
      storageError(() =>
        payloadFromHeadItem({ sk: 'S', encoding: 'gzip', byteLength: 3, chunkCount: 2, structure: inline }),
      ),
    ).toBe('system item S has both chunks and an inline structure');
  });
});
