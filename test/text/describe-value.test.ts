import { describe, expect, it } from 'vitest';
import { describeValue, keyStep, quoteText } from '../../lib/text';

describe('describeValue', () => {
  // Every JSON value a caller can send has a plain-English name; none reads "a undefined".
  it.each<[unknown, string]>([
    [undefined, 'nothing'],
    [null, 'null'],
    [[1, 2], 'an array'],
    [{ a: 1 }, 'an object'],
    [true, 'true'],
    [-1.5, '-1.5'],
    ['db', 'the string "db"'],
  ])('describes %j as %s', (value, words) => {
    expect(describeValue(value)).toBe(words);
  });

  // Values JSON cannot hold, passed by a JavaScript caller, are named by their type.
  it('names values JSON cannot hold by their type', () => {
    expect(describeValue(10n)).toBe('a value of type bigint');
    expect(describeValue(() => 1)).toBe('a value of type function');
    expect(describeValue(Symbol('s'))).toBe('a value of type symbol');
  });

  // Error messages promise 40 characters of a caller's string, then an ellipsis.
  it('cuts strings at 40 characters', () => {
    const long = 'x'.repeat(1000);
    expect(quoteText(long)).toBe(`"${'x'.repeat(40)}…"`);
    expect(describeValue(long)).toBe(`the string "${'x'.repeat(40)}…"`);
    expect(quoteText('x'.repeat(40))).toBe(`"${'x'.repeat(40)}"`);
    // Between code points: an emoji across the cut goes whole (its half was written \ud83d).
    expect(quoteText(`${'p'.repeat(39)}😀tail`)).toBe(`"${'p'.repeat(39)}…"`);
    expect(quoteText(`${'p'.repeat(38)}😀tail`)).toBe(`"${'p'.repeat(38)}😀…"`);
    // The first and the last code points past U+FFFF: their high halves are 0xD800 and 0xDBFF.
    for (const astral of ['\u{10000}', '\u{10FFFF}'])
      expect(quoteText(`${'p'.repeat(39)}${astral}tail`)).toBe(`"${'p'.repeat(39)}…"`);
  });
});

describe('keyStep', () => {
  // A caller's key in an error's path: plain after a dot, bracketed where a dot would mislead,
  // whole up to 256 characters (ids of one account share long prefixes: the explorer tells rows
  // apart by the path), and past that its two ends (a 3 MB id once made a 6 MB error answer).
  const arn = 'arn:aws:lambda:us-east-1:123456789012:function:';
  it.each<[string, string, string]>([
    ['a plain id', 'db', '.db'],
    ['a plain id with - and $', 'api-gw_2$', '.api-gw_2$'],
    ['an id with a dot', 'a.b', '["a.b"]'],
    ['the empty id', '', '[""]'],
    ['an id with a colon', 'checkout:8080', '["checkout:8080"]'],
    ['a plain id of 256 characters', 'x'.repeat(256), `.${'x'.repeat(256)}`],
    ['an ARN', `${arn}orders`, `["${arn}orders"]`],
    ['another ARN of the account', `${arn}payments`, `["${arn}payments"]`],
    ['an id with a dot of 256 characters, whole', `a.${'x'.repeat(254)}`, `["a.${'x'.repeat(254)}"]`],
    ['an id of 257 characters', `a${'x'.repeat(255)}b`, `["a${'x'.repeat(127)}…${'x'.repeat(126)}b"]`],
    ['an id of 3.2 million characters', 'Z'.repeat(3_200_000), `["${'Z'.repeat(128)}…${'Z'.repeat(127)}"]`],
  ])('spells %s', (_name, key, step) => {
    expect(keyStep(key)).toBe(step);
  });

  // Cut between code points: a cut inside a surrogate pair wrote the half left as `\ude00`.
  it('cuts a long key of emoji between code points, at either parity', () => {
    for (const key of [
      '😀'.repeat(200),
      `a${'😀'.repeat(200)}`,
      // One pair across each cut alone: at the head's end, and at the tail's start.
      `${'a'.repeat(127)}😀${'b'.repeat(200)}`,
      `${'a'.repeat(200)}😀${'c'.repeat(126)}`,
    ]) {
      const step = keyStep(key);
      const text = JSON.parse(step.slice(1, -1)) as string;
      expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      expect(step).not.toMatch(/\\u[dD][89a-fA-F]/);
      expect(text.length).toBeLessThanOrEqual(256);
      expect(text).toMatch(/^[a😀]+…[a-c😀]+$/u);
    }
  });
});
