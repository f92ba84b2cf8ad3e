import { describe, expect, it } from 'vitest';
import {
  matchedSettingsRevision,
  type SystemRecord,
  settingsETag,
  toPublicSystemRecord,
} from '../../lib/systems';

describe('toPublicSystemRecord', () => {
  // What an HTTP answer shows of a system: no owner, no hash, and nothing added to the record
  // later; the version (1 when the record has none, as before refresh existed) always.
  it('keeps the public fields and nothing else', () => {
    const record = {
      id: '01KJMMA2G0GGGGGGGGGGGGGGGG',
      owner: 'alice',
      name: 'shop',
      url: 'https://api.example.com/structure',
      nodes: 3,
      dependencies: 3,
      createdAt: '2026-03-01T12:00:00.000Z',
      sha256: 'a'.repeat(64),
      addedLater: 'internal',
    } as SystemRecord;
    expect(toPublicSystemRecord(record)).toEqual({
      id: '01KJMMA2G0GGGGGGGGGGGGGGGG',
      name: 'shop',
      url: 'https://api.example.com/structure',
      nodes: 3,
      dependencies: 3,
      createdAt: '2026-03-01T12:00:00.000Z',
      version: 1,
    });
  });

  // Every optional field a refreshed system with settings has, passed on as it is.
  it('passes every optional field on', () => {
    const settings = { defaultCapacity: 5 };
    const record: SystemRecord = {
      id: '01KJMMA2G0GGGGGGGGGGGGGGGG',
      owner: 'alice',
      name: 'shop',
      url: 'https://api.example.com/structure',
      nodes: 3,
      dependencies: 3,
      createdAt: '2026-03-01T12:00:00.000Z',
      sha256: 'a'.repeat(64),
      format: 'cytoscape',
      unit: 'requests/s',
      readOptions: { window: 60 },
      version: 4,
      refreshedAt: '2026-03-02T12:00:00.000Z',
      settings,
    };
    expect(toPublicSystemRecord(record)).toStrictEqual({
      id: '01KJMMA2G0GGGGGGGGGGGGGGGG',
      name: 'shop',
      url: 'https://api.example.com/structure',
      nodes: 3,
      dependencies: 3,
      createdAt: '2026-03-01T12:00:00.000Z',
      format: 'cytoscape',
      unit: 'requests/s',
      readOptions: { window: 60 },
      version: 4,
      refreshedAt: '2026-03-02T12:00:00.000Z',
      settings,
    });
  });

  // A system sent in a request body has no url; absent fields are absent, not undefined.
  it('leaves absent fields out', () => {
    const record: SystemRecord = {
      id: '01KJMMA2G0GGGGGGGGGGGGGGGG',
      owner: 'alice',
      name: 'shop',
      nodes: 1,
      dependencies: 0,
      createdAt: '2026-03-01T12:00:00.000Z',
      sha256: 'a'.repeat(64),
    };
    expect(Object.keys(toPublicSystemRecord(record))).toEqual([
      'id',
      'name',
      'nodes',
      'dependencies',
      'createdAt',
      'version',
    ]);
  });
});

describe('settingsETag and matchedSettingsRevision', () => {
  // The ETag names the settings' revision: 0 before any PATCH.
  it('tags the settings by their revision', () => {
    expect(settingsETag({})).toBe('"settings-0"');
    expect(settingsETag({ settingsRevision: 7 })).toBe('"settings-7"');
  });

  // If-Match (RFC 9110 §13.1.1): the current tag, in a list or alone, matches that revision; `*`
  // matches any (the write waits for none); a weak or stale tag does not.
  it.each<[string, number | undefined, number | 'any' | undefined]>([
    ['"settings-3"', 3, 3],
    ['"settings-1", "settings-3"', 3, 3],
    ['"settings-1","settings-3"', 3, 3],
    ['*', 3, 'any'],
    ['*', undefined, 'any'],
    ['"settings-2", *', 3, 'any'],
    ['"settings-0"', undefined, 0],
    ['"settings-2"', 3, undefined],
    ['W/"settings-3"', 3, undefined],
    ['settings-3', 3, undefined],
    ['', 3, undefined],
  ])('If-Match %s on revision %s gives %s', (ifMatch, current, matched) => {
    expect(matchedSettingsRevision(ifMatch, current === undefined ? {} : { settingsRevision: current })).toBe(
      matched,
    );
  });
});
