/** `looksLikeJsonLines`: when a text that is not one JSON document is JSON Lines. */
import { describe, expect, it } from 'vitest';
import { looksLikeJsonLines } from '../../lib/text';

describe('looksLikeJsonLines', () => {
  // A value on its first line that is not blank, and another line after it.
  it.each([
    '{"a":1}\n{"a":2}',
    '{"a":1}\r\n{"a":2}\r\n',
    '\uFEFF\n\n  {"a":1}  \n\n[1, 2]\n',
    '\uFEFF{"a":1}\n{"b":2}',
    '"text"\nnot json at all',
    // A first line of spaces is blank too: the value on the next line counts.
    '   \n{"a":1}\n{"b":2}',
  ])('takes %j', (text) => {
    expect(looksLikeJsonLines(text)).toBe(true);
  });

  // One line, a document spread over lines, a first line that is not a value, or nothing.
  // (A first line that is not a value decides, even when the lines after it are JSON Lines; a
  // text of blanks without a final newline ends too.)
  it.each([
    '{"a":1}',
    '{"a":1}\n\n  \n',
    '{\n  "a": 1\n}',
    '{"a":1} x\n{"b":2}',
    '',
    '\n\n',
    'x\ny',
    'x\n{"a":1}\n{"b":2}',
    '   ',
    '\n   ',
  ])('refuses %j', (text) => {
    expect(looksLikeJsonLines(text)).toBe(false);
  });
});
