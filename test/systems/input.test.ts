/** The rules of the system store's arguments, one worked example per rule and edge. */
import { describe, expect, it } from 'vitest';
import { SystemInputError } from '../../lib/systems/errors';
import {
  checkLimit,
  checkName,
  checkOwner,
  checkStructure,
  checkUrl,
  isSystemId,
} from '../../lib/systems/input';

function refusal(check: () => unknown): { field: string; message: string } | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof SystemInputError)) throw error;
    return { field: error.field, message: error.message };
  }
}

describe('checkOwner', () => {
  // A token's sub or an API key's owner: the same rule, so both name the same systems.
  it('takes an owner id and refuses anything else, naming the rule', () => {
    expect(checkOwner('user@example.com')).toBe('user@example.com');
    for (const owner of ['', 'has space', 42, undefined, 'x'.repeat(129)]) {
      expect(refusal(() => checkOwner(owner))).toEqual({
        field: 'owner',
        message: 'owner must be 1-128 characters from A-Z a-z 0-9 . _ @ : + -',
      });
    }
  });
});

describe('checkName', () => {
  // Trimmed, 1 to 100 characters, no control characters.
  it('trims a name and refuses an empty, long or non-string one', () => {
    expect(checkName('  shop  ')).toBe('shop');
    for (const name of ['   ', 'x'.repeat(101), 'tab\there', 7, undefined]) {
      expect(refusal(() => checkName(name))).toEqual({
        field: 'name',
        message: 'name must be 1-100 characters without control characters',
      });
    }
  });
});

describe('checkUrl', () => {
  // Only the length; what may be fetched is the connect route's rule.
  it('takes 1 to 2048 characters', () => {
    expect(checkUrl('x'.repeat(2048))).toBe('x'.repeat(2048));
    for (const url of ['', 'x'.repeat(2049), 42]) {
      expect(refusal(() => checkUrl(url))).toEqual({
        field: 'url',
        message: 'url must be a string of 1-2048 characters',
      });
    }
  });
});

describe('checkStructure', () => {
  // An object with the two arrays; whether the engine accepts it is checked before.
  it('takes an object with nodes and dependencies arrays', () => {
    const structure = { nodes: [], dependencies: [] };
    expect(checkStructure(structure)).toBe(structure);
    for (const value of [
      null,
      'text',
      [],
      Object.assign([], { nodes: [], dependencies: [] }),
      { nodes: [] },
      { dependencies: [] },
      { nodes: {}, dependencies: [] },
    ]) {
      expect(refusal(() => checkStructure(value))).toEqual({
        field: 'structure',
        message: 'structure must be an object with "nodes" and "dependencies" arrays',
      });
    }
  });
});

describe('checkLimit', () => {
  // 50 by default, whole numbers from 1 to 100.
  it('takes 1 to 100, 50 when absent', () => {
    expect(checkLimit(undefined)).toBe(50);
    expect(checkLimit(1)).toBe(1);
    expect(checkLimit(100)).toBe(100);
    for (const [limit, got] of [
      [0, '0'],
      [101, '101'],
      [1.5, '1.5'],
      ['10', '"10"'],
      ['1e1', '"1e1"'],
      [Number.NaN, 'NaN'],
    ] as const) {
      expect(refusal(() => checkLimit(limit))).toEqual({
        field: 'limit',
        message: `limit must be an integer from 1 to 100, got ${got}`,
      });
    }
  });
});

describe('isSystemId', () => {
  // A ULID as the store writes it: 26 Crockford base-32 characters, the first at most 7.
  it('knows a ULID from anything else', () => {
    expect(isSystemId('01KJMMA2G0GGGGGGGGGGGGGGGG')).toBe(true);
    expect(isSystemId('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe(true);
    for (const id of [
      '81KJMMA2G0GGGGGGGGGGGGGGGG',
      '01KJMMA2G0GGGGGGGGGGGGGGGI',
      '01kjmma2g0gggggggggggggggg',
      'x01KJMMA2G0GGGGGGGGGGGGGGGG',
      '01KJMMA2G0GGGGGGGGGGGGGGGGx',
      '01KJMMA2G0GGGGGGGGGGGGGGG',
      42,
      undefined,
    ]) {
      expect(isSystemId(id)).toBe(false);
    }
  });
});
