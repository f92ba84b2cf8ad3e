/** Listing cursors: what the store hands out comes back as the same start key; nothing else does. */
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../lib/systems/cursor';
import { headKey } from '../../lib/systems/items';

const ID = '01KJMMA2G0GGGGGGGGGGGGGGGG';
const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('cursors', () => {
  // The key of a page's last head, as base64url JSON, read back for the same owner.
  it('round-trips the start key of the owner’s listing', () => {
    const key = headKey('alice', ID);
    const cursor = encodeCursor(key);
    expect(cursor).toBe(encode({ pk: 'OWNER#alice', sk: `SYSTEM#${ID}` }));
    expect(decodeCursor(cursor, 'alice')).toEqual(key);
  });

  // A cursor that is not one this listing wrote: the same 400, naming the cursor, never its text.
  it.each<[string, unknown]>([
    ['not a string', 42],
    ['an empty string', ''],
    ['longer than any cursor written', encode({ pk: `OWNER#${'a'.repeat(400)}`, sk: `SYSTEM#${ID}` })],
    ['not base64url', `${encodeCursor(headKey('alice', ID))}=`],
    ['base64url text before junk', `!${encodeCursor(headKey('alice', ID))}`],
    ['base64url of no JSON', Buffer.from('{nope').toString('base64url')],
    ['JSON that is not an object', encode('OWNER#alice')],
    ['JSON null', encode(null)],
    ['a key with an extra field', encode({ pk: 'OWNER#alice', sk: `SYSTEM#${ID}`, x: 1 })],
    ['a key of another owner', encode({ pk: 'OWNER#mallory', sk: `SYSTEM#${ID}` })],
    ['a sort key that is no system’s', encode({ pk: 'OWNER#alice', sk: 'APIKEY#0123' })],
    ['a sort key that is not text', encode({ pk: 'OWNER#alice', sk: 7 })],
  ])('refuses %s', (_what, cursor) => {
    expect(() => decodeCursor(cursor, 'alice')).toThrow(
      expect.objectContaining({
        field: 'cursor',
        message: 'cursor is not one this listing returned; start again without it',
      }),
    );
  });

  // The longest cursor the store writes (an owner of 128 characters) is still read.
  it('reads a cursor of the longest owner', () => {
    const owner = 'o'.repeat(128);
    expect(decodeCursor(encodeCursor(headKey(owner, ID)), owner)).toEqual(headKey(owner, ID));
  });

  // Exactly 512 characters is the most a cursor may have.
  it('takes 512 characters and refuses 513', () => {
    const pad = (length: number) => {
      const owner = 'o'.repeat(length);
      return { owner, cursor: encodeCursor(headKey(owner, ID)) };
    };
    let longest = pad(1);
    for (let length = 1; longest.cursor.length < 512; length += 1) longest = pad(length);
    expect(longest.cursor.length).toBe(512);
    expect(decodeCursor(longest.cursor, longest.owner)).toEqual(headKey(longest.owner, ID));
    expect(() => decodeCursor(`${longest.cursor}A`, longest.owner)).toThrow('cursor is not one');
  });
});
