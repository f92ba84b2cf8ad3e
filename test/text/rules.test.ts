/**
 * The rules for stored text: an owner's shape and a display name's.
 */
import { describe, expect, it } from 'vitest';
import {
  CONTROL_CHARACTERS,
  isDisplayName,
  NAME_MAX_LENGTH,
  OWNER_SHAPE,
  URL_MAX_LENGTH,
} from '../../lib/text';

describe('OWNER_SHAPE', () => {
  // Token subjects and key owners as identity providers write them.
  it('takes 1 to 128 characters from A-Z a-z 0-9 . _ @ : + -', () => {
    for (const owner of [
      'a',
      'user-1',
      'auth0|x'.replace('|', ':'),
      'me@example.com',
      'a+b_c.d:e',
      'x'.repeat(128),
    ]) {
      expect(OWNER_SHAPE.test(owner)).toBe(true);
    }
  });

  // `#` would reach another key prefix in the table; spaces, slashes and anything longer are refused.
  it('refuses #, spaces, other characters, empty and over 128', () => {
    for (const owner of ['', 'a#b', 'a b', 'a/b', 'é', 'x'.repeat(129), 'a\n']) {
      expect(OWNER_SHAPE.test(owner)).toBe(false);
    }
  });
});

describe('isDisplayName', () => {
  it('takes 1 to 100 characters without control characters', () => {
    expect(NAME_MAX_LENGTH).toBe(100);
    expect(isDisplayName('a')).toBe(true);
    expect(isDisplayName('Checkout – production')).toBe(true);
    expect(isDisplayName('x'.repeat(100))).toBe(true);
    // Counted by code point, as the request schema and JSON Schema's maxLength count: 100 emoji
    // are 100 characters (200 UTF-16 units); 60 were refused here after the schema took them.
    expect(isDisplayName('😀'.repeat(100))).toBe(true);
    expect(isDisplayName('😀'.repeat(101))).toBe(false);
  });

  it('refuses an empty name, over 100 characters, and control characters', () => {
    expect(isDisplayName('')).toBe(false);
    expect(isDisplayName('x'.repeat(101))).toBe(false);
    expect(isDisplayName('tab\there')).toBe(false);
    expect(isDisplayName('nul\u0000')).toBe(false);
    expect(isDisplayName('del\u007f')).toBe(false);
    expect(isDisplayName('c1 control\u0085')).toBe(false);
    expect(isDisplayName('last c1\u009f')).toBe(false);
    // Just past the C1 range: an ordinary character.
    expect(isDisplayName('nbsp\u00a0')).toBe(true);
    expect(isDisplayName('before del~')).toBe(true);
    expect(isDisplayName(' space')).toBe(true);
  });
});

describe('CONTROL_CHARACTERS and URL_MAX_LENGTH', () => {
  it('match C0, DEL and C1, and state the URL limit', () => {
    expect(CONTROL_CHARACTERS.test('\u001f')).toBe(true);
    expect(CONTROL_CHARACTERS.test('\u0020')).toBe(false);
    expect(CONTROL_CHARACTERS.test('\u0080')).toBe(true);
    expect(URL_MAX_LENGTH).toBe(2048);
  });
});
