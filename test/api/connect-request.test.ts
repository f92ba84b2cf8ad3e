/**
 * The user routes' request schemas (`lib/api/connect-request.ts`) where the routes' own tests do
 * not reach: the size of the settings.
 */
import { describe, expect, it } from 'vitest';
import { checkSettingsIds, parsePatchSystemRequest } from '../../lib/api/connect-request';
import { ApiError } from '../../lib/api/errors';

/** Settings for 500 nodes whose ids are `length` characters of `letter`, each with a capacity. */
function settingsOf(letter: string, length: number) {
  const nodes: Record<string, { capacity: number }> = {};
  for (let i = 0; i < 500; i++) nodes[`${letter.repeat(length)}${i}`] = { capacity: 1 };
  return { nodes };
}

describe('a PATCH body', () => {
  // `settings` misspelt: the field sent is named, with the one it most likely meant, not the
  // missing `settings` as "got nothing".
  it('names a misspelt field, not the field it leaves missing', () => {
    expect(messageOf(() => parsePatchSystemRequest({ setings: { defaultCapacity: 5 } }))).toBe(
      'setings: unknown field; did you mean settings?',
    );
    expect(messageOf(() => parsePatchSystemRequest({}))).toBe(
      'settings must be an object { defaultCapacity?, nodes? }, got nothing',
    );
  });
});

function messageOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

describe('settings', () => {
  // DynamoDB sizes the head item in UTF-8 bytes. 500 ids of 110 Chinese characters are some
  // 60,000 characters of JSON but 170,000 bytes: with a structure of 300,000 bytes beside them,
  // past the 400 KB an item holds. The limit is in bytes.
  it('are at most 65,536 bytes of JSON in UTF-8, not characters', () => {
    const chinese = settingsOf('服', 110);
    const text = JSON.stringify(chinese);
    expect(text.length).toBeLessThan(65_536);
    expect(Buffer.byteLength(text)).toBeGreaterThan(65_536);
    const refused = (() => {
      try {
        parsePatchSystemRequest({ settings: chinese });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).message).toContain('settings must be at most 65536 bytes of JSON (UTF-8)');
    // The same characters' count in ASCII fits.
    expect(parsePatchSystemRequest({ settings: settingsOf('s', 110) }).settings.nodes).toBeDefined();
  });
});

describe('settings keyed by any id', () => {
  /** Settings whose compact JSON is exactly `bytes` long, with one entry under `id`. */
  function settingsOfBytes(id: string, bytes: number) {
    const shell = JSON.stringify({ nodes: { [id]: { capacity: 1 }, f: { capacity: 1 } } });
    const filler = 'f'.repeat(bytes - Buffer.byteLength(shell) + 1);
    const nodes = JSON.parse(`{"${id}":{"capacity":1},"${filler}":{"capacity":1}}`) as Record<
      string,
      unknown
    >;
    const settings = { nodes };
    expect(Buffer.byteLength(JSON.stringify(settings))).toBe(bytes);
    return settings;
  }

  // `__proto__` is read through an escaped copy (so it stays a key): the limit counts what was
  // sent, not the escape. It once cost six bytes, so settings of exactly 65,536 bytes with such a
  // key were refused where the same size without it was taken.
  it('count an id named __proto__ as the bytes sent', () => {
    const atLimit = settingsOfBytes('__proto__', 65_536);
    expect(Object.keys(parsePatchSystemRequest({ settings: atLimit }).settings.nodes!)).toContain(
      '__proto__',
    );
    expect(
      messageOf(() => parsePatchSystemRequest({ settings: settingsOfBytes('__proto__', 65_537) })),
    ).toContain('settings must be at most 65536 bytes of JSON (UTF-8)');
    expect(
      parsePatchSystemRequest({ settings: settingsOfBytes('a_proto__', 65_536) }).settings.nodes,
    ).toBeDefined();
  });

  // A path names an id as the engine's scenario paths do: bracketed where a dot would mislead,
  // and cut where it is long, so a 100,000-character id costs the message 256 of them.
  it('are named in a path bracketed and cut when not plain', () => {
    const long = 'Z'.repeat(100_000);
    expect(
      messageOf(() => parsePatchSystemRequest({ settings: { nodes: { [long]: { capacity: 0 } } } })),
    ).toBe(
      `settings.nodes["${'Z'.repeat(128)}…${'Z'.repeat(127)}"].capacity must be a finite number > 0, got 0`,
    );
    expect(messageOf(() => parsePatchSystemRequest({ settings: { nodes: { 'a.b': { cap: 1 } } } }))).toMatch(
      /^settings\.nodes\["a\.b"\]\.cap: unknown field; settings\.nodes\["a\.b"\] takes "capacity"/,
    );
    expect(messageOf(() => checkSettingsIds([long, 'b']))).toBe(
      `settings.nodes["${'Z'.repeat(128)}…${'Z'.repeat(127)}"] names no node of the structure (nor do 1 more)`,
    );
  });
});
